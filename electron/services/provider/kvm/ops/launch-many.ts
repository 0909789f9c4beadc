/**
 * Several proxies in one request. Where each goes is planned once, up front, from every
 * host's free memory and pool space (a pure function: `planHosts`), so that `spread` really
 * spreads instead of every launch picking the same "most free" host before the others have
 * used any of it. Then each proxy is launched with its host named, a few at a time; a
 * failure of one keeps the others (each launch rolls back only itself), and a cancel rolls
 * back only the launches not yet finished.
 */
import type { ProxySpec } from '../../../../../shared/proxy.js';
import type { Strategy } from '../../../../../shared/launch-many.js';
import { messageOf } from '../../../../../shared/errors.js';
import type { ProviderContext } from '../context.js';
import { PlacementError } from '../errors.js';
import { type LaunchOptions, type LaunchResult, launch } from './launch.js';
import { gib } from '../pool-room.js';
import { candidates } from './placement.js';
import { resolveSpec } from '../render.js';
import { GIB } from '../xml/volume-xml.js';

/** What a host offers to the plan: free memory and pool space, in bytes. */
export interface HostRoom {
  host: string;
  free: number;
  available: number;
}

/**
 * A host for each of `count` proxies of `memory`/`disk` bytes, or why not. `spread`: the
 * hosts by free memory, one proxy each in turn, each taking what it uses from its host
 * before the next turn; `pack`: the host with the most free memory until it is full, then
 * the next; `hosts`: the named hosts in turn (each must be a candidate).
 */
export function planHosts(
  strategy: Strategy,
  count: number,
  rooms: readonly HostRoom[],
  memory: number,
  disk: number,
): { hosts: string[] } | { error: string } {
  const left = rooms.map((r) => ({ ...r }));
  const fits = (r: HostRoom) => r.free >= memory && r.available >= disk;
  const take = (r: HostRoom) => {
    r.free -= memory;
    r.available -= disk;
    return r.host;
  };
  const hosts: string[] = [];
  if (strategy.kind === 'hosts') {
    const named = strategy.hosts.map((h) => left.find((r) => r.host === h));
    const missing = strategy.hosts.filter((_, i) => !named[i]);
    if (missing.length) return { error: `not able to take a proxy now: ${missing.join(', ')}` };
    for (let i = 0; i < count; i++) {
      const room = named[i % named.length]!;
      if (!fits(room))
        return {
          error: `${room.host} has no room for proxy ${i + 1} of ${count} (${gib(room.free)} of memory and ${gib(room.available)} of pool left)`,
        };
      hosts.push(take(room));
    }
    return { hosts };
  }
  for (let i = 0; i < count; i++) {
    const open = left.filter(fits).sort((a, b) => b.free - a.free);
    if (!open.length) return { error: `room for ${i} of ${count} proxies on the hosts that answer` };
    let room = open[0]!;
    if (strategy.kind === 'pack') {
      // The host already being filled, while it has room; else the one with the most free memory.
      const current = hosts.length ? left.find((r) => r.host === hosts.at(-1)) : undefined;
      if (current && fits(current)) room = current;
    } else {
      // Spread: a host this request has not used yet first; once each has one, the most free memory.
      room = open.find((r) => !hosts.includes(r.host)) ?? room;
    }
    hosts.push(take(room));
  }
  return { hosts };
}

/** One proxy of a launch-many request, as it ended. */
export type ManyOutcome =
  | { name: string; host: string; ok: true; result: LaunchResult }
  | { name: string; host?: string; ok: false; error: Error };

export interface LaunchManyOptions extends Omit<LaunchOptions, 'onStep'> {
  /** At most this many launches run at once (default 4: libvirt and the hosts' disks are shared). */
  parallel?: number;
  /** Called as each proxy's launch starts, reports a step, or ends. */
  onProxy?: (
    name: string,
    event: { phase: 'start' | 'step' | 'done' | 'failed'; step?: string; message?: string },
  ) => void;
}

/** Launches `specs` (same machine type and image) placed by `strategy`; never throws for one proxy's failure. */
export async function launchMany(
  ctx: ProviderContext,
  specs: readonly ProxySpec[],
  strategy: Strategy,
  options: LaunchManyOptions = {},
): Promise<ManyOutcome[]> {
  const first = specs[0];
  if (!first) return [];
  const someHost = ctx.config.hosts[0];
  if (!someHost) throw new PlacementError('the config has no hosts');
  const machine = resolveSpec(first, ctx.config, someHost, () => ({
    username: 'check',
    password: 'check',
  })).machineType;
  const memory = machine.memoryMiB * 1024 * 1024;
  const disk = machine.diskGiB * GIB;
  const { usable, rejected } = await candidates({
    hosts: ctx.config.hosts,
    apiFor: ctx.apiFor,
    diskBytes: disk,
    memoryBytes: memory,
  });
  const plan = planHosts(
    strategy,
    specs.length,
    usable.map((c) => ({ host: c.host.name, free: c.free, available: c.available })),
    memory,
    disk,
  );
  if ('error' in plan)
    throw new PlacementError(
      `cannot place ${specs.length} proxies: ${plan.error}${rejected.length ? ` (${rejected.join('; ')})` : ''}`,
    );
  const outcomes: ManyOutcome[] = new Array(specs.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (;;) {
      const i = next++;
      if (i >= specs.length) return;
      const spec = { ...specs[i]!, host: plan.hosts[i]! };
      const name = spec.name;
      if (options.signal?.aborted) {
        outcomes[i] = { name, host: spec.host, ok: false, error: new Error('not launched: the request was cancelled') };
        continue;
      }
      options.onProxy?.(name, { phase: 'start' });
      try {
        const result = await launch(ctx, spec, {
          ...options,
          onStep: (e) => e.phase === 'start' && options.onProxy?.(name, { phase: 'step', step: e.step }),
        });
        outcomes[i] = { name, host: result.proxy.host, ok: true, result };
        options.onProxy?.(name, { phase: 'done', message: result.url ?? result.placement });
      } catch (err) {
        outcomes[i] = {
          name,
          host: spec.host,
          ok: false,
          error: err instanceof Error ? err : new Error(messageOf(err)),
        };
        options.onProxy?.(name, { phase: 'failed', message: messageOf(err) });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.parallel ?? 4, specs.length) }, worker));
  return outcomes;
}
