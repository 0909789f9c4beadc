/**
 * The app's own settings as the health monitor reads them: the one schema of
 * `settings.json` (shared/app-settings.ts) through the one reader (settings-file.ts). The
 * monitor runs in the background every 30 s: a file that cannot be read or is not the schema
 * must not stop it, so it counts as the defaults here (the CLI, which edits the file,
 * reports such a file with its path and field).
 */
import { type AppSettings, AppSettingsSchema } from '../../../shared/app-settings.js';
import { readSettingsFile, settingsPath } from './settings-file.js';

export type { AppSettings } from '../../../shared/app-settings.js';

export function appSettingsPath(dataDir: string): string {
  return settingsPath(dataDir);
}

/** The settings in `file`, or the defaults when it is missing or broken. */
export async function readAppSettings(file: string): Promise<AppSettings> {
  return readSettingsFile(file).catch(() => AppSettingsSchema.parse({}));
}
