/**
 * Facts that travel with a proxy in its libvirt metadata element (docs/metadata.md):
 * labels, who launched it, when it expires. Every value here ends up in domain XML that
 * other people's tools read, so each is a strict pattern with a bounded length and count;
 * none may hold a secret. The CLI's arguments (`env=prod`, `--ttl 8h`) are parsed here
 * too, so the app's filter box and the command line accept the same text.
 */
import { z } from 'zod';

/** Label keys: lowercase, starting with a letter, like Kubernetes' name segment (no prefix). */
export const LABEL_KEY = /^[a-z][a-z0-9._-]{0,62}$/;
/** Label values: letters, digits, `.`, `_`, `-`; 1–63 characters. */
export const LABEL_VALUE = /^[A-Za-z0-9._-]{1,63}$/;
/** At most this many labels on one proxy. */
export const LABELS_MAX = 32;

const LABEL_KEY_MESSAGE =
  'a label key must be 1-63 characters: a lowercase letter, then lowercase letters, digits, ".", "_" or "-"';
const LABEL_VALUE_MESSAGE = 'a label value must be 1-63 characters of letters, digits, ".", "_" and "-"';

export const LabelKeySchema = z.string().regex(LABEL_KEY, LABEL_KEY_MESSAGE);
export const LabelValueSchema = z.string().regex(LABEL_VALUE, LABEL_VALUE_MESSAGE);
export const LabelsSchema = z
  // zod's record passes over a "__proto__" key without a word: every key is checked first.
  .custom<Record<string, string>>(
    (v) => typeof v === 'object' && v !== null && Object.keys(v).every((k) => LABEL_KEY.test(k)),
    LABEL_KEY_MESSAGE,
  )
  .pipe(
    z
      .record(LabelKeySchema, LabelValueSchema)
      .refine((labels) => Object.keys(labels).length <= LABELS_MAX, `at most ${LABELS_MAX} labels`),
  );
export type Labels = z.infer<typeof LabelsSchema>;

/**
 * Who launched a proxy: the OS user and the workstation's host name. Identifies, never
 * authenticates: anyone who can reach the hypervisor can write metadata.
 */
export const LaunchedBySchema = z.strictObject({
  user: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,64}$/, 'a user name must be 1-64 characters of letters, digits, ".", "_" and "-"'),
  workstation: z
    .string()
    .regex(
      /^[A-Za-z0-9.-]{1,253}$/,
      'a workstation must be a host name (letters, digits, "." and "-", at most 253 characters)',
    ),
});
export type LaunchedBy = z.infer<typeof LaunchedBySchema>;

/** An ISO 8601 instant with a date and a time (`2026-12-03T18:00:00Z`). */
export const IsoInstantSchema = z
  .string()
  .refine(
    (s) => /^\d{4}-\d\d-\d\dT[0-9:.]+(Z|[+-]\d\d:\d\d)$/.test(s) && !Number.isNaN(Date.parse(s)),
    'must be an ISO 8601 date and time (2026-12-31T18:00:00Z)',
  );

/** `key=value` → the pair; a message naming what is wrong otherwise. */
export function parseLabel(text: string): [string, string] {
  const eq = text.indexOf('=');
  if (eq < 0) throw new Error(`${JSON.stringify(text)}: a label is key=value`);
  const key = text.slice(0, eq);
  const value = text.slice(eq + 1);
  const k = LabelKeySchema.safeParse(key);
  if (!k.success) throw new Error(`${JSON.stringify(text)}: ${LABEL_KEY_MESSAGE}`);
  const v = LabelValueSchema.safeParse(value);
  if (!v.success) throw new Error(`${JSON.stringify(text)}: ${LABEL_VALUE_MESSAGE}`);
  return [key, value];
}

/**
 * A label selector: `env=prod` or several, comma-separated (`env=prod,team=web`); each
 * pair must match. Throws with a message for text that is not one.
 */
export function parseSelector(text: string): Labels {
  const pairs = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (!pairs.length) throw new Error('a label selector is key=value[,key=value…]');
  return Object.fromEntries(pairs.map(parseLabel));
}

/** True when every pair of `selector` is among `labels`. */
export function matchesSelector(labels: Labels | undefined, selector: Labels): boolean {
  return Object.entries(selector).every(([k, v]) => labels?.[k] === v);
}

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
/** The longest time to live `--ttl` takes: a year. */
export const TTL_MAX_MS = 366 * UNIT_MS.d;

/**
 * When a proxy launched at `now` expires: `--ttl` as a duration (`90m`, `8h`, `2d`,
 * `1d12h`) or an ISO 8601 date and time in the future. Returns the ISO instant.
 */
export function expiryFrom(ttl: string, now: number): string {
  const duration = /^(?:(\d{1,4})d)?(?:(\d{1,5})h)?(?:(\d{1,6})m)?$/.exec(ttl);
  if (duration && ttl !== '') {
    const ms =
      Number(duration[1] ?? 0) * UNIT_MS.d +
      Number(duration[2] ?? 0) * UNIT_MS.h +
      Number(duration[3] ?? 0) * UNIT_MS.m;
    if (ms <= 0 || ms > TTL_MAX_MS)
      throw new Error(`time to live ${JSON.stringify(ttl)}: must be more than nothing and at most 366 days`);
    return new Date(now + ms).toISOString();
  }
  if (!IsoInstantSchema.safeParse(ttl).success)
    throw new Error(
      `time to live ${JSON.stringify(ttl)}: a duration (90m, 8h, 2d, 1d12h) or an ISO 8601 date and time (2026-12-31T18:00:00Z)`,
    );
  const at = Date.parse(ttl);
  if (at <= now) throw new Error(`time to live ${JSON.stringify(ttl)}: that is in the past`);
  if (at - now > TTL_MAX_MS) throw new Error(`time to live ${JSON.stringify(ttl)}: at most 366 days ahead`);
  return new Date(at).toISOString();
}

/** True when a proxy with this expiry has expired at `now`; never for one without. */
export function isExpired(expiresAt: string | undefined, now: number): boolean {
  return expiresAt !== undefined && Date.parse(expiresAt) <= now;
}

/** `3h 12m left`, `expired 5m ago`: a countdown, to the minute. */
export function countdown(expiresAt: string, now: number): string {
  const ms = Date.parse(expiresAt) - now;
  const minutes = Math.floor(Math.abs(ms) / 60_000);
  const d = Math.floor(minutes / 1440);
  const h = Math.floor((minutes % 1440) / 60);
  const m = minutes % 60;
  const text = d ? `${d}d ${h}h` : h ? `${h}h ${m}m` : `${m}m`;
  return ms > 0 ? `${text} left` : `expired ${text} ago`;
}

/** `alice@laptop`. */
export function ownerText(by: LaunchedBy): string {
  return `${by.user}@${by.workstation}`;
}

/** True when `by` is `me` (same user on the same workstation). A proxy nobody recorded is nobody's. */
export function isMine(by: LaunchedBy | undefined, me: LaunchedBy): boolean {
  return by !== undefined && by.user === me.user && by.workstation.toLowerCase() === me.workstation.toLowerCase();
}
