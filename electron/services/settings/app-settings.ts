/**
 * The app's own settings, in `settings.json` in the data directory (never in config.yaml,
 * which is the operator's fleet description): today the health probe's URLs. A file that
 * is missing, unreadable or not the schema counts as the defaults.
 */
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../config/atomic-write.js';
import { readJsonFile } from '../config/json-file.js';

export const SETTINGS_FILE = 'settings.json';

const HttpUrl = z.url({ protocol: /^http$/, error: 'must be an http:// URL (the probe sends it to the proxy in absolute form)' });

export const AppSettingsSchema = z.strictObject({
  health: z
    .strictObject({
      /** Fetched through each proxy every 30 s: status and latency. Without it, the proxy itself is asked. */
      checkUrl: HttpUrl.optional(),
      /** Answers the caller's address (plain text or `{"ip": …}`): the proxy's exit address. Fetched instead of checkUrl when set. */
      echoUrl: HttpUrl.optional(),
      /** An answer slower than this is "slow" (default 2000 ms). */
      slowMs: z.number().int().positive().max(60_000).optional(),
    })
    .default({}),
});
export type AppSettings = z.infer<typeof AppSettingsSchema>;

export function appSettingsPath(dataDir: string): string {
  return join(dataDir, SETTINGS_FILE);
}

export async function readAppSettings(file: string): Promise<AppSettings> {
  return (await readJsonFile(file, AppSettingsSchema)) ?? AppSettingsSchema.parse({});
}

export async function saveAppSettings(file: string, settings: AppSettings): Promise<void> {
  await writeFileAtomic(file, `${JSON.stringify(AppSettingsSchema.parse(settings), null, 2)}\n`, { mode: 0o600 });
}
