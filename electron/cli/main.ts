#!/usr/bin/env node
/** Entry point of the `egress-desk` binary. */
import { runCli } from './program.js';

const code = await runCli(process.argv.slice(2), {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  env: process.env,
  cwd: process.cwd(),
});
process.exitCode = code;
