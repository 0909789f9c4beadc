/**
 * The log: `logs/egress-desk.log` in the data directory, JSON lines from pino, rotated
 * when it passes a size limit. Secrets are redacted by key wherever they appear, so a
 * careless log call cannot write a password, passphrase or key to disk.
 */
import { mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pino, { type Logger } from 'pino';

export type { Logger } from 'pino';

export const LOG_FILE = 'egress-desk.log';
/** Rotate when the file passes this size; keep this many old files (`.1` newest). */
export const ROTATE_BYTES = 10 * 1024 * 1024;
export const KEEP_FILES = 5;

/** Keys whose values never reach the log, at any depth pino's redaction covers. */
export const REDACTED_KEYS = [
  'password',
  'passphrase',
  'privateKey',
  'credentials',
  'token',
  'secret',
  'authorization',
];

/** The redaction paths: each key at the top and up to two levels down. */
function redactPaths(): string[] {
  return REDACTED_KEYS.flatMap((k) => [k, `*.${k}`, `*.*.${k}`]);
}

/** Shifts `log` → `log.1` → … → `log.N` (dropping the oldest) when `log` is too big. */
export function rotate(file: string, maxBytes = ROTATE_BYTES, keep = KEEP_FILES): void {
  let size: number;
  try {
    size = statSync(file).size;
  } catch {
    return; // no log yet
  }
  if (size < maxBytes) return;
  rmSync(`${file}.${keep}`, { force: true });
  for (let i = keep - 1; i >= 1; i--) {
    try {
      renameSync(`${file}.${i}`, `${file}.${i + 1}`);
    } catch {
      /* a gap in the sequence is fine */
    }
  }
  renameSync(file, `${file}.1`);
}

export interface LoggerOptions {
  dataDir: string;
  /** Also write human-readable lines at debug level here (the CLI's --verbose). */
  echo?: (line: string) => void;
  /** Write synchronously: for short-lived processes that must not lose their last lines. */
  sync?: boolean;
  level?: pino.Level;
}

/** The logs directory of a data directory ("Open logs" opens it). */
export function logDir(dataDir: string): string {
  return join(dataDir, 'logs');
}

export function createLogger(options: LoggerOptions): Logger {
  const dir = logDir(options.dataDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, LOG_FILE);
  rotate(file);
  const streams: pino.StreamEntry[] = [
    { level: 'debug', stream: pino.destination({ dest: file, sync: options.sync ?? false, mode: 0o600 }) },
  ];
  if (options.echo) {
    const echo = options.echo;
    streams.push({
      level: 'debug',
      stream: {
        write(line: string) {
          try {
            const entry = JSON.parse(line) as { level: number; msg?: string };
            echo(`${pino.levels.labels[entry.level] ?? 'log'}: ${entry.msg ?? ''}\n`);
          } catch {
            echo(line);
          }
        },
      },
    });
  }
  return pino(
    {
      level: options.level ?? 'info',
      base: { pid: process.pid },
      redact: { paths: redactPaths(), censor: '[redacted]' },
    },
    pino.multistream(streams),
  );
}
