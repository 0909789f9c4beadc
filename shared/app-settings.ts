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

const HttpUrl = z.url({ protocol: /^http$/, error: 'must be an http:// URL (the probe sends it to the proxy in absolute form)' });

/** The health probe through each proxy (electron/services/app/fleet-health.ts). */
export const HealthSettingsSchema = z.strictObject({
  /** Fetched through each proxy every 30 s: status and latency. Without it, the proxy itself is asked. */
  checkUrl: HttpUrl.optional(),
  /** Answers the caller's address (plain text or `{"ip": …}`): the proxy's exit address. Fetched instead of checkUrl when set. */
  echoUrl: HttpUrl.optional(),
  /** An answer slower than this is "slow" (default 2000 ms). */
  slowMs: z.number().int().positive().max(60_000).optional(),
});

export const AppSettingsSchema = z.strictObject({
  hosts: z.record(z.string().min(1), HostSettingsSchema).default({}),
  health: HealthSettingsSchema.default({}),
});
export type AppSettings = z.infer<typeof AppSettingsSchema>;

/** A host's image transfer: its setting, else `auto`. */
export function imageTransferOf(settings: AppSettings, host: string): ImageTransfer {
  return settings.hosts[host]?.imageTransfer ?? 'auto';
}
