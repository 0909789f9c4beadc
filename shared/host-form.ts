/**
 * The host form of the Hosts view, and the validation of a candidate host against the
 * current config with the config's own rules (shared/config.ts): the schema's field checks
 * and the cross-field ones (duplicate names, network vs bridge, SSH fields on "local").
 * The renderer shows these messages under each field as the person types; the backend
 * applies the same rules again when it saves (ConfigWrites.edit), so the two never
 * disagree.
 */
import { type ConfigIssue, type KVMHost, type ProviderConfig, formatIssue, validateProviderConfig } from './config.js';

/** The form's fields, in the order they are shown: the host schema's fields. */
export const HOST_FIELDS = [
  'name',
  'address',
  'sshUser',
  'sshPort',
  'identityFile',
  'socketPath',
  'pool',
  'network',
  'bridge',
  'domainType',
] as const;
export type HostField = (typeof HOST_FIELDS)[number];

/** What the person typed, one string per field ("" = not set). */
export type HostForm = Record<HostField, string>;

export const EMPTY_HOST_FORM: HostForm = Object.fromEntries(HOST_FIELDS.map((f) => [f, ''])) as HostForm;

/** One problem with a candidate host. */
export interface HostFieldIssue {
  /** The form field it is about; `host` for the host as a whole. */
  field: HostField | 'host';
  /** The config path, e.g. `kvm.hosts[1].name`. */
  path: string;
  message: string;
  /** `path: message`, the path-first form shown to the person. */
  text: string;
}

/** The form of an existing host (for Edit). */
export function hostToForm(host: KVMHost): HostForm {
  const form = { ...EMPTY_HOST_FORM };
  for (const field of HOST_FIELDS) {
    const value = host[field];
    if (value !== undefined) form[field] = String(value);
  }
  return form;
}

/**
 * The candidate host of a form: values trimmed, empty fields left out (so that defaults
 * apply), a port of digits as a number. Anything else is passed as typed, so that the
 * schema's own message explains it (`sshPort: expected a number, got the text "abc"`).
 */
export function formToHost(form: HostForm): Record<string, unknown> {
  const host: Record<string, unknown> = {};
  for (const field of HOST_FIELDS) {
    const value = form[field].trim();
    if (value === '') continue;
    host[field] = field === 'sshPort' && /^\d{1,6}$/.test(value) ? Number(value) : value;
  }
  return host;
}

const HOST_PATH = /kvm\.hosts\[(\d+)\]/g;

/**
 * Validates `candidate` as a host of `config`: a new one, or the replacement of the host
 * named `options.replacing`. Returns every problem with the candidate itself (problems
 * elsewhere in the config are not the form's), path-first, in field order; [] = valid.
 *
 * The candidate is checked in the place it will take: its own index for an edit, the end
 * of the list for an add. Duplicate names are reported on the later entry of a pair, so
 * the candidate is validated as the last entry and its paths are then given back their
 * real index.
 */
export function validateHostCandidate(
  config: ProviderConfig | undefined,
  candidate: unknown,
  options: { replacing?: string } = {},
): HostFieldIssue[] {
  const hosts = config?.kvm?.hosts ?? [];
  const replaced = options.replacing === undefined ? -1 : hosts.findIndex((h) => h.name === options.replacing);
  const others = hosts.filter((_, i) => i !== replaced);
  const realIndex = replaced >= 0 ? replaced : hosts.length;
  const last = others.length;
  const kvm = config?.kvm ? structuredClone(config.kvm) : { machineTypes: { small: { vcpus: 1, memoryMiB: 512 } } };
  const probe = { type: 'kvm', kvm: { ...kvm, hosts: [...structuredClone(others), candidate] } };
  const result = validateProviderConfig(probe);
  if (result.ok) return [];
  // Index in the probe's list → index in the config as it will be saved.
  const real = (i: number) => (i === last ? realIndex : replaced >= 0 && i >= replaced ? i + 1 : i);
  const remap = (text: string) => text.replace(HOST_PATH, (_, i: string) => `kvm.hosts[${real(Number(i))}]`);
  const prefix = `kvm.hosts[${last}]`;
  const mine = result.issues.filter(
    (issue: ConfigIssue) => issue.path === prefix || issue.path.startsWith(`${prefix}.`),
  );
  const issues = mine.map((issue): HostFieldIssue => {
    const rest = issue.path.slice(prefix.length + 1).split(/[.[]/)[0] ?? '';
    const field = (HOST_FIELDS as readonly string[]).includes(rest) ? (rest as HostField) : 'host';
    const path = remap(issue.path);
    const message = remap(issue.message);
    return { field, path, message, text: formatIssue({ path, message }) };
  });
  const order = (f: HostFieldIssue['field']) => (f === 'host' ? -1 : HOST_FIELDS.indexOf(f));
  return issues.sort((a, b) => order(a.field) - order(b.field));
}

/** The first message per field, for showing under each input. */
export function issuesByField(issues: readonly HostFieldIssue[]): Partial<Record<HostField | 'host', string>> {
  const out: Partial<Record<HostField | 'host', string>> = {};
  for (const issue of issues) out[issue.field] ??= issue.text;
  return out;
}
