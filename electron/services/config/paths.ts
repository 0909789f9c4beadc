/**
 * Where the app keeps its files. One rule for the app, the CLI and serve mode, so that
 * all three see the same config and cache.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The environment variable that overrides the data directory (tests always set it). */
export const HOME_ENV = 'EGRESS_DESK_HOME';

/**
 * The data directory: `$EGRESS_DESK_HOME`, else the platform's per-user config location
 * (`$XDG_CONFIG_HOME/egress-desk` or `~/.config/egress-desk` on Linux,
 * `~/Library/Application Support/egress-desk` on macOS, `%APPDATA%\egress-desk` on Windows).
 */
export function dataDir(
  env: Readonly<Record<string, string | undefined>> = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string = homedir(),
): string {
  const override = env[HOME_ENV];
  if (override) return override;
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'egress-desk');
  if (platform === 'win32') return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'egress-desk');
  return join(env.XDG_CONFIG_HOME || join(home, '.config'), 'egress-desk');
}

/**
 * The app's own keyring directory inside a data directory: the publishers' keys a person
 * trusts, for checking checksum files' signatures (binary keyrings, `*.gpg` or `*.kbx`).
 */
export function keyringDir(dir: string): string {
  return join(dir, 'keyrings');
}

/** The app's own config file inside a data directory. */
export function configPath(dir: string): string {
  return join(dir, 'config.yaml');
}
