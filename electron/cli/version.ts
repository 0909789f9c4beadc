/** The app version, read from package.json at run time (one source of truth). */
import { readFileSync } from 'node:fs';

function readVersion(): string {
  try {
    const pkg: unknown = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'));
    const version = (pkg as { version?: unknown }).version;
    return typeof version === 'string' ? version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}

export const VERSION = readVersion();
