/**
 * The Gateway view's form as one object (the house's form pattern: host-form.ts,
 * settings-form.ts): whether the gateway runs and where, as typed, what `gateway:set` gets
 * from it, and its problems by field in the contract's own words.
 */
import { configErrorMap, formatPath } from './config-issues.js';
import { type GatewaySettings, GatewaySettingsSchema } from './gateway.js';

export interface GatewayForm {
  enabled: boolean;
  port: string;
  bind: string;
  /** Empty: no SOCKS5 listener. */
  socksPort: string;
  logQuery: boolean;
}

export const GATEWAY_FIELDS = ['enabled', 'port', 'bind', 'socksPort', 'logQuery'] as const;
export type GatewayField = (typeof GATEWAY_FIELDS)[number];

export function gatewayToForm(s: GatewaySettings): GatewayForm {
  return {
    enabled: s.enabled,
    port: String(s.port),
    bind: s.bind,
    socksPort: s.socksPort === null ? '' : String(s.socksPort),
    logQuery: s.logQuery,
  };
}

export const sameGatewayForm = (a: GatewayForm, b: GatewayForm): boolean => GATEWAY_FIELDS.every((k) => a[k] === b[k]);

/** A typed number: the number when it is one, else the text, so the schema's message names what was typed. */
const numberOf = (text: string): number | string => {
  const t = text.trim();
  const n = Number(t);
  return t !== '' && Number.isFinite(n) ? n : t;
};

/** The form checked by the contract's schema: the settings to send, or the problems by field. */
export function checkGatewayForm(
  form: GatewayForm,
): { ok: true; settings: GatewaySettings } | { ok: false; problems: Partial<Record<GatewayField, string>> } {
  const parsed = GatewaySettingsSchema.safeParse(
    {
      enabled: form.enabled,
      port: numberOf(form.port),
      bind: form.bind.trim(),
      socksPort: form.socksPort.trim() === '' ? null : numberOf(form.socksPort),
      logQuery: form.logQuery,
    },
    { error: configErrorMap },
  );
  if (parsed.success) return { ok: true, settings: parsed.data };
  const problems: Partial<Record<GatewayField, string>> = {};
  for (const i of parsed.error.issues) {
    const field = formatPath(i.path) as GatewayField;
    problems[field] ??= field === 'bind' ? 'must be an IPv4 or IPv6 address of this machine, or localhost' : i.message;
  }
  return { ok: false, problems };
}
