/**
 * The gateway's access log (issue 40): `logs/gateway-access.log` in the data directory, one
 * JSON line per request (gateway-http.ts's entry: no secret, no query string unless asked),
 * written by pino's destination (SonicBoom) and rotated while the gateway runs, not only at
 * start as the backend's log is: a gateway runs for days. Rotation is the backend log's
 * (`log.1` newest, 5 kept, at 10 MiB), followed by SonicBoom's `reopen`, the way pino
 * documents rotation by an outside tool.
 */
import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { KEEP_FILES, ROTATE_BYTES, logDir, rotate } from '../log/logger.js';
import type { GatewayAccessEntry } from './gateway-http.js';

export const ACCESS_LOG_FILE = 'gateway-access.log';

/** The access log of a data directory. */
export function accessLogPath(dataDir: string): string {
  return join(logDir(dataDir), ACCESS_LOG_FILE);
}

export interface AccessLogOptions {
  /** Rotate past this size (default the backend log's 10 MiB). */
  maxBytes?: number;
  keep?: number;
  /** Write each line at once (tests, short runs); default buffered. */
  sync?: boolean;
}

export class AccessLog {
  private readonly dest: ReturnType<typeof pino.destination>;
  private size: number;
  private readonly maxBytes: number;
  private readonly keep: number;

  constructor(
    readonly file: string,
    options: AccessLogOptions = {},
  ) {
    this.maxBytes = options.maxBytes ?? ROTATE_BYTES;
    this.keep = options.keep ?? KEEP_FILES;
    mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
    rotate(file, this.maxBytes, this.keep);
    this.size = sizeOf(file);
    this.dest = pino.destination({ dest: file, sync: options.sync ?? false, mode: 0o600 });
    // A log that cannot be written (its folder removed, a full disk) must not take the gateway down.
    this.dest.on('error', (err: Error) => (this.lastError = err.message));
  }

  /** Why the last write failed, if one did. */
  lastError: string | undefined;

  write(entry: GatewayAccessEntry): void {
    const line = `${JSON.stringify(entry)}\n`;
    this.dest.write(line);
    this.size += Buffer.byteLength(line);
    if (this.size < this.maxBytes) return;
    // What is buffered goes to the file being rotated out, then the new one is opened.
    this.dest.flushSync();
    rotate(this.file, this.maxBytes, this.keep);
    this.dest.reopen();
    this.size = 0;
  }

  close(): void {
    try {
      this.dest.flushSync();
    } catch {
      // Not open yet: end() writes what is buffered once it is.
    }
    this.dest.end();
  }
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}
