/**
 * Which proxies a command acts on: one NAME, or every proxy whose labels match `-l
 * env=prod`; and whether acting on them needs someone's agreement first (someone else's
 * proxies without --force; several deleted at once without --yes). Pure: the commands
 * list the fleet, then ask these.
 */
import {
  type Labels,
  type LaunchedBy,
  isMine,
  matchesSelector,
  ownerText,
  parseSelector,
} from '../../../shared/fleet-meta.js';
import { CliError, EXIT } from '../io.js';

/** What {@link matching} and {@link refuseOthers} read of a proxy: a listing's record, or its parsed view. */
interface Selectable {
  name: string;
  labels?: Labels | undefined;
  launchedBy?: LaunchedBy | undefined;
}

/** `-l/--selector` parsed, or undefined when not given; a usage error for text that is not a selector. */
export function selectorOption(text: string | undefined): Labels | undefined {
  if (text === undefined) return undefined;
  try {
    return parseSelector(text);
  } catch (err) {
    throw new CliError(`-l: ${(err as Error).message}`, EXIT.usage);
  }
}

/** Exactly one of NAME and -l: a usage error otherwise. */
export function checkTarget(name: string | undefined, selector: Labels | undefined): void {
  if (name === undefined && selector === undefined)
    throw new CliError('give a proxy NAME, or -l key=value to act on every proxy with those labels', EXIT.usage);
  if (name !== undefined && selector !== undefined)
    throw new CliError('give a proxy NAME or -l key=value, not both', EXIT.usage);
}

/** The proxies of a listing whose labels match, by name. */
export function matching<P extends Selectable>(proxies: readonly P[], selector: Labels): P[] {
  return proxies.filter((p) => matchesSelector(p.labels, selector));
}

/** `env=prod,team=web`. */
export function selectorText(selector: Labels): string {
  return Object.entries(selector)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}

/** The proxies among `targets` someone else launched; a usage-free refusal naming each owner unless `force`. */
export function refuseOthers(
  targets: readonly Selectable[],
  you: LaunchedBy,
  verb: 'stop' | 'delete' | 'replace',
  force: boolean | undefined,
): void {
  if (force) return;
  const others = targets.filter((p) => p.launchedBy !== undefined && !isMine(p.launchedBy, you));
  if (!others.length) return;
  const list = others.map((p) => `${p.name} (launched by ${ownerText(p.launchedBy!)})`).join(', ');
  throw new CliError(`not yours: ${list}; you are ${ownerText(you)}. Ask them, then ${verb} with --force`, EXIT.failed);
}
