/** Runs the real `egress-desk` binary as a child process. */
import { spawn } from 'node:child_process';
import { cliBin } from './dist.js';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCliProcess(args: string[], env: Record<string, string>, cwd?: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliBin, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: env.HOME ?? process.env.HOME ?? '/', ...env },
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
