/**
 * The Settings view's one form object: what a person types for the app's own settings
 * (settings.json), what `settings:set` gets from it, and its problems by field in the
 * contract's own words (the same schema the backend checks with, with the config's wording),
 * as host-form.ts is for the Host dialog.
 */
import { type EditableSettings, type SettingsSetInput, SettingsSetInputSchema } from './app-settings.js';
import { configErrorMap, formatPath } from './config-issues.js';

/** The form as typed: text for every field a person types into. */
export interface SettingsForm {
  checkUrl: string;
  echoUrl: string;
  slowMs: string;
  intervalSeconds: string;
  autoBake: boolean;
  autoReplace: boolean;
  afterMinutes: string;
  maxPerHour: string;
}

/** The form's fields by their path in `settings:set`: where a problem is shown. */
export const SETTINGS_FIELDS = [
  'health.checkUrl',
  'health.echoUrl',
  'health.slowMs',
  'health.intervalSeconds',
  'autoBake',
  'autoReplace.enabled',
  'autoReplace.afterMinutes',
  'autoReplace.maxPerHour',
] as const;
export type SettingsField = (typeof SETTINGS_FIELDS)[number];

/** A problem of the form: its field's path and the message. */
export interface SettingsIssue {
  path: string;
  message: string;
}

/** The form showing `s` (the settings in force; an unset threshold or interval is an empty field). */
export function settingsToForm(s: EditableSettings): SettingsForm {
  return {
    checkUrl: s.health.checkUrl ?? '',
    echoUrl: s.health.echoUrl ?? '',
    slowMs: s.health.slowMs === undefined ? '' : String(s.health.slowMs),
    intervalSeconds: s.health.intervalSeconds === undefined ? '' : String(s.health.intervalSeconds),
    autoBake: s.autoBake,
    autoReplace: s.autoReplace.enabled,
    afterMinutes: String(s.autoReplace.afterMinutes),
    maxPerHour: String(s.autoReplace.maxPerHour),
  };
}

export const sameSettingsForm = (a: SettingsForm, b: SettingsForm): boolean =>
  (Object.keys(a) as (keyof SettingsForm)[]).every((k) => a[k] === b[k]);

/** A typed number: the number when it is one, else the text itself, so the schema's message names what was typed. */
function numberOf(text: string): number | string | undefined {
  const t = text.trim();
  if (!t) return undefined;
  const n = Number(t);
  return Number.isFinite(n) ? n : t;
}

/**
 * What `settings:set` gets (not yet checked): an empty field means its default (no URL,
 * 2000 ms, every 30 s, 10 minutes, 2 an hour).
 */
export function formToSettings(form: SettingsForm): Record<string, unknown> {
  const health: Record<string, unknown> = {};
  if (form.checkUrl.trim()) health.checkUrl = form.checkUrl.trim();
  if (form.echoUrl.trim()) health.echoUrl = form.echoUrl.trim();
  const slow = numberOf(form.slowMs);
  if (slow !== undefined) health.slowMs = slow;
  const interval = numberOf(form.intervalSeconds);
  if (interval !== undefined) health.intervalSeconds = interval;
  const autoReplace: Record<string, unknown> = { enabled: form.autoReplace };
  const after = numberOf(form.afterMinutes);
  if (after !== undefined) autoReplace.afterMinutes = after;
  const max = numberOf(form.maxPerHour);
  if (max !== undefined) autoReplace.maxPerHour = max;
  return { health, autoBake: form.autoBake, autoReplace };
}

/** The form checked by the contract's own schema: the input to send, or the problems (the backend's words). */
export function checkSettingsForm(
  form: SettingsForm,
): { ok: true; input: SettingsSetInput } | { ok: false; issues: SettingsIssue[] } {
  const input = formToSettings(form);
  const parsed = SettingsSetInputSchema.safeParse(input, { error: configErrorMap });
  if (parsed.success) return { ok: true, input: input as SettingsSetInput };
  return { ok: false, issues: parsed.error.issues.map((i) => ({ path: formatPath(i.path), message: i.message })) };
}

/** Problems by field (the first for each), and the ones no field shows (a refusal naming another path, say). */
export function settingsIssuesByField(issues: readonly SettingsIssue[]): {
  fields: Partial<Record<SettingsField, string>>;
  other: string[];
} {
  const fields: Partial<Record<SettingsField, string>> = {};
  const other: string[] = [];
  for (const i of issues) {
    if ((SETTINGS_FIELDS as readonly string[]).includes(i.path)) fields[i.path as SettingsField] ??= i.message;
    else other.push(i.path ? `${i.path}: ${i.message}` : i.message);
  }
  return { fields, other };
}
