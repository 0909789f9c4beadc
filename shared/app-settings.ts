/**
 * The app's own settings: what only the desktop side needs, kept out of config.yaml (which
 * stays exactly the operator's schema). One file in the data directory, `settings.json`,
 * validated by this schema; unknown fields are errors, as in the config.
 */
import { z } from 'zod';

/** How a host gets its base image: `auto` fetches there when it can, else uploads from this machine. */
export const IMAGE_TRANSFERS = ['auto', 'upload', 'fetch'] as const;
export type ImageTransfer = (typeof IMAGE_TRANSFERS)[number];

/** One host's settings, by the host's name in the config. */
export const HostSettingsSchema = z.strictObject({
  imageTransfer: z.enum(IMAGE_TRANSFERS).default('auto'),
});
export type HostSettings = z.infer<typeof HostSettingsSchema>;

export const AppSettingsSchema = z.strictObject({
  hosts: z.record(z.string().min(1), HostSettingsSchema).default({}),
});
export type AppSettings = z.infer<typeof AppSettingsSchema>;

/** A host's image transfer: its setting, else `auto`. */
export function imageTransferOf(settings: AppSettings, host: string): ImageTransfer {
  return settings.hosts[host]?.imageTransfer ?? 'auto';
}
