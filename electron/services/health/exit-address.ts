/**
 * What is wrong with a proxy's exit address (pure): it changed since the echo URL's answer
 * before, or it is not what any of the same host's other proxies show. Proxies on one host
 * leave through that host's address (NAT on its network), so a proxy that differs from its
 * siblings is routed somewhere else (a changed network, a VPN, an upstream in the guest).
 */

/** One proxy's exit as the last echo answers saw it. */
export interface ExitSeen {
  /** The latest echoed address; absent when the echo URL never answered one. */
  current?: string;
  /** The address before the latest, when the latest differed from it. */
  previous?: string;
}

/** The warning for a person, or undefined when nothing is wrong; `others` are the current exits of the host's other proxies. */
export function exitWarning(
  host: string,
  seen: ExitSeen,
  others: ReadonlyArray<string | undefined>,
): string | undefined {
  if (!seen.current) return undefined;
  const parts: string[] = [];
  if (seen.previous && seen.previous !== seen.current) parts.push(`changed from ${seen.previous} to ${seen.current}`);
  const known = [...new Set(others.filter((o): o is string => !!o))].sort();
  if (known.length && !known.includes(seen.current))
    parts.push(`differs from what host ${host}'s other proxies show (${known.join(', ')})`);
  return parts.length ? parts.join('; ') : undefined;
}

/**
 * Each proxy's warning among `list` (a fleet's health), comparing each with its own host's
 * others only. Linear in the fleet: a host's exits are counted once, and a proxy's "others"
 * are those counts less its own (a host holds a handful of distinct exits, not one per
 * proxy). It runs after every health round over the whole fleet, so comparing each proxy
 * with every sibling (1,000 on a host: a million comparisons) showed in the idle backend's
 * CPU profile (bench (i)).
 */
export function exitWarnings<K extends string>(
  list: readonly { host: string; key: K; seen: ExitSeen }[],
): Map<K, string | undefined> {
  const exits = new Map<string, Map<string, number>>();
  for (const p of list) {
    let counts = exits.get(p.host);
    if (!counts) exits.set(p.host, (counts = new Map()));
    if (p.seen.current) counts.set(p.seen.current, (counts.get(p.seen.current) ?? 0) + 1);
  }
  const out = new Map<K, string | undefined>();
  for (const p of list) {
    if (!p.seen.current) {
      out.set(p.key, undefined);
      continue;
    }
    const others: string[] = [];
    for (const [address, count] of exits.get(p.host)!)
      if (count - (address === p.seen.current ? 1 : 0) > 0) others.push(address);
    out.set(p.key, exitWarning(p.host, p.seen, others));
  }
  return out;
}
