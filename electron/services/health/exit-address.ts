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
export function exitWarning(host: string, seen: ExitSeen, others: ReadonlyArray<string | undefined>): string | undefined {
  if (!seen.current) return undefined;
  const parts: string[] = [];
  if (seen.previous && seen.previous !== seen.current) parts.push(`changed from ${seen.previous} to ${seen.current}`);
  const known = [...new Set(others.filter((o): o is string => !!o))].sort();
  if (known.length && !known.includes(seen.current)) parts.push(`differs from what host ${host}'s other proxies show (${known.join(', ')})`);
  return parts.length ? parts.join('; ') : undefined;
}

/** Each proxy's warning among `list` (a fleet's health), comparing each with its own host's others only. */
export function exitWarnings<T extends { host: string; key: string; seen: ExitSeen }>(list: readonly T[]): Map<string, string | undefined> {
  const byHost = new Map<string, T[]>();
  for (const p of list) byHost.set(p.host, [...(byHost.get(p.host) ?? []), p]);
  const out = new Map<string, string | undefined>();
  for (const [host, members] of byHost) {
    for (const p of members) out.set(p.key, exitWarning(host, p.seen, members.filter((m) => m !== p).map((m) => m.seen.current)));
  }
  return out;
}
