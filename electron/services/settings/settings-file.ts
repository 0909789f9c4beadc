/**
 * The app's settings file (`<dataDir>/settings.json`, schema in shared/app-settings.ts):
 * read afresh on each use, so that the app and the CLI see each other's changes; written
 * atomically, mode 0600. A missing file is the defaults.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type AppSettings, AppSettingsSchema } from '../../../shared/app-settings.js';
import { messageOf } from '../../../shared/errors.js';
import { writeFileAtomic } from '../config/atomic-write.js';

export const SETTINGS_FILE = 'settings.json';

export function settingsPath(dataDir: string): string {
  return join(dataDir, SETTINGS_FILE);
}

/** The settings, or the defaults when there is no file; an unreadable or invalid file is an error naming it and the field. */
export async function readSettings(dataDir: string): Promise<AppSettings> {
  return readSettingsFile(settingsPath(dataDir));
}

/** {@link readSettings} of a settings file named by its path. */
export async function readSettingsFile(path: string): Promise<AppSettings> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return AppSettingsSchema.parse({});
    throw new Error(`${path}: ${messageOf(err)}`, { cause: err });
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new Error(`${path}: not JSON (${messageOf(err)})`, { cause: err });
  }
  const parsed = AppSettingsSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${path}: ${issue?.path.join('.') || '(top)'}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

/** Changes the settings with `change` (read, changed, validated, written atomically 0600). */
export async function updateSettings(dataDir: string, change: (s: AppSettings) => AppSettings): Promise<AppSettings> {
  return updateSettingsFile(settingsPath(dataDir), change);
}

/** {@link updateSettings} of a settings file named by its path. */
export async function updateSettingsFile(path: string, change: (s: AppSettings) => AppSettings): Promise<AppSettings> {
  const next = AppSettingsSchema.parse(change(await readSettingsFile(path)));
  await writeFileAtomic(path, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
  return next;
}

/**
 * {@link readSettingsFile}, or the defaults when the file is missing or broken: for the
 * health monitor, which runs in the background every 30 s and must not stop over it (the
 * CLI, which edits the file, reports such a file with its path and field).
 */
export async function readSettingsOrDefaults(path: string): Promise<AppSettings> {
  return readSettingsFile(path).catch(() => AppSettingsSchema.parse({}));
}
