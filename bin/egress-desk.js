#!/usr/bin/env node
// The `egress-desk` binary: runs the compiled CLI (npm install builds it via `prepare`).
import { existsSync } from 'node:fs';

const entry = new URL('../dist/electron/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('egress-desk: the CLI is not built yet; run `npm run build:node` in the project directory.\n');
  process.exit(2);
}
await import(entry.href);
