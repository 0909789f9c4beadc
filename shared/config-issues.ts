/**
 * Validation messages for configuration files. Every message names the field it is about
 * with the path spelling of docs/config.md: dots between fields, `[i]` for list items,
 * the key for map entries (`kvm.hosts[1].name`, `kvm.images.debian-12.sha256`).
 */
import type { core } from 'zod';

/** One problem in a configuration document. */
export interface ConfigIssue {
  /** Field path, e.g. `kvm.hosts[0].address`; empty for the document itself. */
  path: string;
  /** What is wrong, phrased for a person. */
  message: string;
}

/** `path: message`, the one-line form the CLI and the app print. */
export function formatIssue(issue: ConfigIssue): string {
  return issue.path ? `${issue.path}: ${issue.message}` : issue.message;
}

/** Keys written bare: dot-separated words. Anything else (`.`, `a.`, `a..b`, spaces) is quoted, or the path could not be read back. */
const PLAIN_KEY = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

/** Formats a zod path the way docs/config.md spells field paths. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else {
      const key = String(part);
      out += PLAIN_KEY.test(key) ? (out ? `.${key}` : key) : `[${JSON.stringify(key)}]`;
    }
  }
  return out;
}

/** A short, safe description of a value for messages: never the whole of a large value. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a map';
  if (typeof value === 'string') {
    const shown = value.length > 40 ? `${value.slice(0, 37)}...` : value;
    return `the text ${JSON.stringify(shown)}`;
  }
  return `${typeof value} ${String(value)}`;
}

const EXPECTED: Record<string, string> = {
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  object: 'a map of fields',
  record: 'a map',
  array: 'a list',
};

/**
 * The wording of zod's built-in checks. Messages given in the schemas themselves take
 * precedence over this map (zod applies schema-level messages first).
 */
export const configErrorMap: core.$ZodErrorMap = (issue) => {
  if (issue.input === undefined && issue.code !== 'unrecognized_keys') return 'required';
  switch (issue.code) {
    case 'invalid_type': {
      const expected = EXPECTED[issue.expected] ?? issue.expected;
      const hint =
        issue.expected === 'string' && (typeof issue.input === 'number' || typeof issue.input === 'boolean')
          ? ' (put the value in quotes)'
          : '';
      if (issue.expected === 'int' && typeof issue.input === 'number')
        return `must be a whole number (got ${issue.input})`;
      return `expected ${expected}, got ${describeValue(issue.input)}${hint}`;
    }
    case 'too_small':
      if (issue.origin === 'string' && Number(issue.minimum) === 1) return 'must not be empty';
      if (issue.origin === 'array') return `needs at least ${issue.minimum} entries`;
      return `must be at least ${issue.minimum} (got ${String(issue.input)})`;
    case 'too_big':
      if (issue.origin === 'string') return `must be at most ${issue.maximum} characters`;
      if (issue.origin === 'array') return `must have at most ${issue.maximum} entries`;
      return `must be at most ${issue.maximum} (got ${String(issue.input)})`;
    case 'invalid_value':
      return `must be one of ${issue.values.map(String).join(', ')} (got ${describeValue(issue.input)})`;
    default:
      return undefined;
  }
};

/** Levenshtein distance, for "did you mean" on unknown fields. */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j]!;
      row[j] = Math.min(
        row[j]! + 1,
        row[j - 1]! + 1,
        prev + (a[i - 1]!.toLowerCase() === b[j - 1]!.toLowerCase() ? 0 : 1),
      );
      prev = cur;
    }
  }
  return row[b.length]!;
}

/** The closest known field name to a misspelt one, when it is close enough to be a typo. */
export function suggestField(unknown: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const k of known) {
    const d = distance(unknown, k);
    if (d < bestDistance) {
      best = k;
      bestDistance = d;
    }
  }
  return best !== undefined && bestDistance <= Math.max(1, Math.floor(best.length / 3)) ? best : undefined;
}

/** Keys that a strict object schema accepts, found by walking `schema` along `path`. */
export type KnownKeys = (path: readonly PropertyKey[]) => readonly string[];

/** Turns zod issues into config issues: paths formatted, one issue per unknown field. */
export function issuesFromZod(issues: readonly core.$ZodIssue[], knownKeys: KnownKeys): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  // zod 4 still runs a string's length checks on a value of the wrong type that has a
  // `length` field (`{ length: null }`): its wrong type is the one thing to say there.
  const wrongType = new Set(issues.filter((i) => i.code === 'invalid_type').map((i) => formatPath(i.path)));
  for (const issue of issues) {
    if (issue.code !== 'invalid_type' && issue.code !== 'unrecognized_keys' && wrongType.has(formatPath(issue.path)))
      continue;
    if (issue.code === 'unrecognized_keys') {
      const known = knownKeys(issue.path);
      for (const key of issue.keys) {
        const suggestion = suggestField(key, known);
        out.push({
          path: formatPath([...issue.path, key]),
          message: suggestion
            ? `unknown field (did you mean "${suggestion}"?)`
            : `unknown field${known.length ? ` (known: ${known.join(', ')})` : ''}`,
        });
      }
    } else {
      out.push({ path: formatPath(issue.path), message: issue.message });
    }
  }
  return out;
}
