/**
 * Launching several proxies at once (`proxies launch --count N`, the dialog's "Launch N"):
 * the names a pattern gives, and where they go. Shared by the CLI and the app so that both
 * refuse the same input with the same words.
 */
import { z } from 'zod';
import { DNS_LABEL, DNS_LABEL_MAX } from './config.js';

/** Most proxies one request may launch: a typo (`--count 1000`) must not flood a host. */
export const LAUNCH_MANY_MAX = 50;

/**
 * Where the proxies go: `spread` (one per host first, then by free memory), `pack` (fill the
 * host with the most free memory before the next), or the hosts named, in turn.
 */
export type Strategy = { kind: 'spread' } | { kind: 'pack' } | { kind: 'hosts'; hosts: string[] };

/** A field of a launch of many: the count, the name pattern, the strategy. */
export type LaunchManyField = 'count' | 'name' | 'strategy';

/**
 * Why a launch of many is refused: the field it is about and what is wrong with it. Each
 * front end names the field its own way (the dialog's field, the CLI's `--count`, `NAME`,
 * `--strategy`) and shows the message as it is.
 */
export interface LaunchManyProblem<F extends LaunchManyField = LaunchManyField> {
  field: F;
  message: string;
}

/** `web-{n}` with 3 → web-1, web-2, web-3. A count above 1 needs `{n}` (names are unique). */
export function expandNames(
  pattern: string,
  count: number,
): { names: string[] } | { problem: LaunchManyProblem<'count' | 'name'> } {
  if (!Number.isInteger(count) || count < 1 || count > LAUNCH_MANY_MAX)
    return {
      problem: { field: 'count', message: `must be a whole number from 1 to ${LAUNCH_MANY_MAX} (got ${count})` },
    };
  if (count > 1 && !pattern.includes('{n}'))
    return {
      problem: {
        field: 'name',
        message: `with a count above 1 the name needs {n}, which becomes 1, 2, …, ${count} (e.g. ${pattern}-{n})`,
      },
    };
  const names = Array.from({ length: count }, (_, i) => pattern.replaceAll('{n}', String(i + 1)));
  const bad = names.find((n) => !DNS_LABEL.test(n));
  if (bad !== undefined)
    return {
      problem: {
        field: 'name',
        message: `${JSON.stringify(bad)} is not a lowercase DNS label (a-z, 0-9 and "-", at most ${DNS_LABEL_MAX} characters)`,
      },
    };
  return { names };
}

/** `spread`, `pack`, or a comma-separated list of host names. */
export function parseStrategy(text: string): Strategy | { problem: LaunchManyProblem<'strategy'> } {
  const t = text.trim();
  if (t === 'spread' || t === 'pack') return { kind: t };
  const hosts = t.split(',').map((h) => h.trim());
  if (!hosts.length || hosts.some((h) => !DNS_LABEL.test(h)))
    return {
      problem: {
        field: 'strategy',
        message: `spread, pack, or a comma-separated list of host names (got ${JSON.stringify(text)})`,
      },
    };
  return { kind: 'hosts', hosts };
}

export const StrategySchema = z.union([
  z.strictObject({ kind: z.literal('spread') }),
  z.strictObject({ kind: z.literal('pack') }),
  z.strictObject({ kind: z.literal('hosts'), hosts: z.array(z.string().regex(DNS_LABEL)).min(1).max(100) }),
]);
