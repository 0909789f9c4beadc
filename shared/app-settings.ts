/**
 * The app's own settings: what only the desktop side needs, kept out of config.yaml (which
 * stays exactly the operator's schema). One file in the data directory, `settings.json`,
 * validated by this schema; unknown fields are errors, as in the config.
 */
import { z } from 'zod';
import { GatewaySettingsSchema } from './gateway.js';

/** How a host gets its base image: `auto` fetches there when it can, else uploads from this machine. */
export const IMAGE_TRANSFERS = ['auto', 'upload', 'fetch'] as const;
export type ImageTransfer = (typeof IMAGE_TRANSFERS)[number];

/**
 * How the last base image that reached a host got there: written by the launch that moved
 * it (the app's or the CLI's), not chosen by anyone. `reason` is why it was not fetched on
 * the host when it could have been (`auto` fell back to the upload); absent when the host
 * fetched it, or when upload was chosen.
 */
export const LastTransferSchema = z.strictObject({
  mode: z.enum(['fetch', 'upload']),
  reason: z.string().max(2000).optional(),
  /** The base volume it made (`egress-base-<sha256>.qcow2`). */
  volume: z.string().min(1).max(255),
  /** ISO 8601 instant the transfer ended. */
  at: z.iso.datetime(),
});
export type LastTransfer = z.infer<typeof LastTransferSchema>;

/** One host's settings, by the host's name in the config. */
export const HostSettingsSchema = z.strictObject({
  imageTransfer: z.enum(IMAGE_TRANSFERS).default('auto'),
  lastTransfer: LastTransferSchema.optional(),
});
export type HostSettings = z.infer<typeof HostSettingsSchema>;

/** A host's image transfer as the Hosts view shows it (`hosts:imageTransfer`, `hosts:setImageTransfer`). */
export const HostImageTransferSchema = z.object({
  host: z.string(),
  imageTransfer: z.enum(IMAGE_TRANSFERS),
  last: LastTransferSchema.optional(),
  /** The settings file it is kept in. */
  file: z.string(),
});
export type HostImageTransfer = z.infer<typeof HostImageTransferSchema>;

const HttpUrl = z.url({
  protocol: /^https?$/,
  error: 'must be an http:// or https:// URL (https goes through a CONNECT tunnel)',
});

/** The health probe through each proxy (electron/services/app/fleet-health.ts). */
export const HealthSettingsSchema = z.strictObject({
  /** Fetched through each proxy every round: status and latency. Without it, the proxy itself is asked. */
  checkUrl: HttpUrl.optional(),
  /** Answers the caller's address (plain text or `{"ip": …}`): the proxy's exit address. Fetched instead of checkUrl when set. */
  echoUrl: HttpUrl.optional(),
  /** An answer slower than this is "slow" (default 2000 ms). */
  slowMs: z.number().int().positive().max(60_000).optional(),
  /**
   * Seconds between two rounds (default {@link DEFAULT_HEALTH_INTERVAL_S}). Shorter notices a
   * dead proxy (and so auto-replace acts) sooner, at one request through each proxy a round;
   * not under 5 s, the probe's own timeout being 10 s.
   */
  intervalSeconds: z.number().int().min(5).max(3600).optional(),
});
export type HealthSettings = z.infer<typeof HealthSettingsSchema>;

/** Seconds between health rounds when settings.json names no `health.intervalSeconds`. */
export const DEFAULT_HEALTH_INTERVAL_S = 30;

/** An answer slower than this is "slow" when settings.json names no `health.slowMs`. */
export const DEFAULT_SLOW_MS = 2000;

/**
 * Auto-replace (electron/services/app/auto-replace-watch.ts): a proxy of yours whose health
 * has been failing for `afterMinutes` is replaced (proxies replace), at most `maxPerHour`
 * replacements an hour across the fleet. Off unless `enabled`.
 */
export const AutoReplaceSettingsSchema = z.strictObject({
  enabled: z.boolean().default(false),
  /** Failing this long (minutes; fractions allowed) before it is replaced (default 10). */
  afterMinutes: z.number().positive().max(1440).default(10),
  /** Replacements started in any hour, at most (default 2): a broken host must not churn the fleet. */
  maxPerHour: z.number().int().min(1).max(100).default(2),
});
export type AutoReplaceSettings = z.infer<typeof AutoReplaceSettingsSchema>;

export const AppSettingsSchema = z.strictObject({
  hosts: z.record(z.string().min(1), HostSettingsSchema).default({}),
  health: HealthSettingsSchema.default({}),
  /**
   * After the first launch on a host that used a plain base, bake the image there in the
   * background. Absent = on (absent rather than a default, so a file written for another
   * setting does not grow this key).
   */
  autoBake: z.boolean().optional(),
  autoReplace: AutoReplaceSettingsSchema.optional(),
  /** The gateway the app runs (shared/gateway.ts; the Gateway view edits it through `gateway:set`). */
  gateway: GatewaySettingsSchema.optional(),
});
export type AppSettings = z.infer<typeof AppSettingsSchema>;

/**
 * What the Settings view shows and edits (`settings:get`): every setting but the per-host
 * ones (the Hosts view edits those through `hosts:setImageTransfer`), each with its
 * default filled in, so the form shows what is in force.
 */
export const EditableSettingsSchema = z.strictObject({
  health: HealthSettingsSchema,
  autoBake: z.boolean(),
  autoReplace: AutoReplaceSettingsSchema,
});
export type EditableSettings = z.infer<typeof EditableSettingsSchema>;

/** `settings:get`: the settings in force and the file they are kept in. */
export const SettingsViewSchema = z.object({
  file: z.string(),
  settings: EditableSettingsSchema,
});
export type SettingsView = z.infer<typeof SettingsViewSchema>;

/**
 * `settings:set`: the sections to change. A section given replaces that section whole
 * (`health: {}` clears both URLs and the threshold; an `autoReplace` without
 * `afterMinutes` gets the default 10); a section left out is kept as it is, and so is
 * `hosts`, which this channel cannot touch. Unknown fields are errors.
 */
export const SettingsSetInputSchema = z.strictObject({
  health: HealthSettingsSchema.optional(),
  autoBake: z.boolean().optional(),
  autoReplace: AutoReplaceSettingsSchema.optional(),
});
export type SettingsSetInput = z.input<typeof SettingsSetInputSchema>;

/** The editable settings in force: what the file says, else the defaults (auto-bake on, auto-replace off). */
export function editableSettingsOf(settings: AppSettings): EditableSettings {
  return {
    health: settings.health,
    autoBake: settings.autoBake !== false,
    autoReplace: settings.autoReplace ?? AutoReplaceSettingsSchema.parse({}),
  };
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * `settings` with the sections of `change` (already validated by {@link SettingsSetInputSchema})
 * put in; every other key, `hosts` first of all, is kept. A section equal to what is
 * already in force is not written: a file that leaves `autoBake` out (on) does not grow
 * `"autoBake": true` because the person saved the health URLs.
 */
export function withEditableSettings(
  settings: AppSettings,
  change: z.output<typeof SettingsSetInputSchema>,
): AppSettings {
  const now = editableSettingsOf(settings);
  const next: AppSettings = { ...settings };
  if (change.health && !sameJson(change.health, now.health)) next.health = change.health;
  if (change.autoBake !== undefined && change.autoBake !== now.autoBake) next.autoBake = change.autoBake;
  if (change.autoReplace && !sameJson(change.autoReplace, now.autoReplace)) next.autoReplace = change.autoReplace;
  return next;
}

/** A host's image transfer: its setting, else `auto`. */
export function imageTransferOf(settings: AppSettings, host: string): ImageTransfer {
  return settings.hosts[host]?.imageTransfer ?? 'auto';
}

/** `settings` with `host`'s image transfer set to `how` (what it last did is kept). */
export function withImageTransfer(settings: AppSettings, host: string, how: ImageTransfer): AppSettings {
  return { ...settings, hosts: { ...settings.hosts, [host]: { ...settings.hosts[host], imageTransfer: how } } };
}

/** `settings` with what the last transfer to `host` did (its choice is kept, `auto` when it had none). */
export function withLastTransfer(settings: AppSettings, host: string, last: LastTransfer): AppSettings {
  return {
    ...settings,
    hosts: {
      ...settings.hosts,
      [host]: { imageTransfer: imageTransferOf(settings, host), ...settings.hosts[host], lastTransfer: last },
    },
  };
}

/** One line for a person: how the last image reached the host, and why it was not fetched there. */
export function describeLastTransfer(last: LastTransfer): string {
  const how =
    last.mode === 'fetch'
      ? 'fetched by the host itself'
      : `uploaded from this machine${last.reason ? ` (not fetched on the host: ${last.reason})` : ''}`;
  return `${last.volume} ${how}, ${last.at}`;
}
