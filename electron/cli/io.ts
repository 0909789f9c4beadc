import type { Readable } from 'node:stream';

/**
 * What a CLI command may touch of its process: injected so that commands run the same
 * in-process (tests) and as the real `egress-desk` binary.
 */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Readonly<Record<string, string | undefined>>;
  /** Current working directory, for resolving relative file arguments. */
  cwd: string;
  /** Where questions are answered (confirmations); the process's stdin when absent. */
  stdin?: Readable;
  /** Whether stdin, stdout and stderr are terminals (prompts, progress lines, `proxies top`'s screen); the process's when absent. */
  isTTY?: { stdin?: boolean; stdout?: boolean; stderr?: boolean };
}

/** Options every command accepts (declared on the root program). */
export interface GlobalOptions {
  config?: string;
  verbose?: boolean;
}

/** A failure the CLI reports as one message and an exit code, without a stack trace. */
export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

/** Exit codes, documented in docs/cli.md. */
export const EXIT = {
  ok: 0,
  /** The operation failed, or the config is invalid. */
  failed: 1,
  /** Bad usage, or an input that cannot be read or parsed. */
  usage: 2,
} as const;
