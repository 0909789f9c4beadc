/**
 * Finds what a crash or a hand-made change left behind, on every reachable host:
 * volumes named like ours with no domain, our domains whose volumes are gone, and
 * stored credentials of proxies that no longer exist. With `fix`, removes them.
 * Launches under way in this process are left alone (their volumes precede their domain).
 */
import type { ProviderContext } from '../context.js';

import { metadataOf } from '../fleet.js';
import { groupHypervisors, owningEntry } from '../hypervisors.js';
import { instanceIds, instanceOfVolume, isInstanceVolume } from '../names.js';
import { ownVolumes } from '../domain-facts.js';
import { messageOf } from '../../../../../shared/errors.js';
import { isMine, ownerText } from '../../../../../shared/fleet-meta.js';
import { ORPHAN_GRACE_MS } from '../orphan-grace.js';

export interface ReconcileFinding {
  kind: 'orphan-volume' | 'broken-domain' | 'stale-credentials';
  host?: string;
  /** Volume name, domain name or proxy name. */
  object: string;
  detail: string;
  fixed?: boolean;
  /**
   * Left alone on purpose: an orphan volume changed less than {@link ORPHAN_GRACE_MS} ago
   * may be a launch under way in another process (its volumes precede its domain).
   */
  deferred?: boolean;
  /** Why the fix failed. */
  error?: string;
}

export interface ReconcileReport {
  findings: ReconcileFinding[];
  /** Hosts that could not be checked. */
  unreachable: Array<{ host: string; error: string }>;
  fixed: boolean;
}

/**
 * What reconcile may touch (docs/provider.md): per hypervisor (entries that reach the same
 * one are checked together, once), instance volumes in the entries' pools that no domain
 * of that hypervisor owns; and our domains whose own disks, as their XML names them, are
 * missing from the pools their XML names. A domain whose disks are all there is never
 * touched, whichever entry's pool the config names now; one whose pools cannot be read
 * is not judged.
 */

/** What {@link reconcile} is asked to do. */
export interface ReconcileOptions {
  /** Remove what was found (else only report). */
  fix?: boolean;
  /**
   * With `fix`: also remove a broken domain someone else launched (another user or
   * workstation, as its metadata records). Without it such a finding is not fixed, naming
   * the owner, as `proxies delete` refuses their proxies: their own reconcile may be the
   * one to judge it, and its credentials are on their workstation.
   */
  force?: boolean;
}

export async function reconcile(ctx: ProviderContext, options: ReconcileOptions = {}): Promise<ReconcileReport> {
  const report: ReconcileReport = { findings: [], unreachable: [], fixed: options.fix === true };
  const fleet = new Set<string>();
  const { hypervisors, unreachable } = await groupHypervisors(ctx);
  for (const { host, error } of unreachable) report.unreachable.push({ host: host.name, error });
  await Promise.all(
    hypervisors.map(async ({ leader, api, members }) => {
      try {
        // The pools of this hypervisor's entries and the pools its domains name, each read once (after a refresh: libvirt then sees volumes changed behind its back).
        const pools = new Map<string, Promise<Set<string>>>();
        const volumesOf = (pool: string): Promise<Set<string>> => {
          let p = pools.get(pool);
          if (!p) {
            p = ctx.queues
              .run(leader.name, () => api.refreshPool(pool))
              .then(async () => new Set(await api.listVolumes(pool)));
            pools.set(pool, p);
          }
          return p;
        };
        const domains = await api.listDomains();
        const names = new Set(domains.map((d) => d.name));
        for (const domain of domains) {
          let meta;
          try {
            meta = metadataOf(domain);
          } catch {
            continue; // not readable by this version: not ours to judge
          }
          if (!meta) continue;
          fleet.add(meta.name);
          if (ctx.launching.has(domain.name)) continue;
          const host = owningEntry(meta.host, members).host;
          const own = ownVolumes(domain);
          const missing: string[] = [];
          let unreadablePool: string | undefined;
          for (const ref of own) {
            const present = await volumesOf(ref.pool).catch((err: unknown) => {
              unreadablePool ??= `pool ${ref.pool}: ${messageOf(err)}`;
              return undefined;
            });
            if (present && !present.has(ref.volume)) missing.push(`${ref.volume} (pool ${ref.pool})`);
          }
          if (unreadablePool) {
            report.unreachable.push({ host: host.name, error: `cannot judge ${domain.name}: ${unreadablePool}` });
            continue;
          }
          if (!missing.length) continue;
          const finding: ReconcileFinding = {
            kind: 'broken-domain',
            host: host.name,
            object: domain.name,
            detail: `proxy ${meta.name}: volume${missing.length > 1 ? 's' : ''} ${missing.join(', ')} missing`,
          };
          if (options.fix && meta.launchedBy && !isMine(meta.launchedBy, ctx.identity) && !options.force) {
            finding.fixed = false;
            finding.error = `not yours: launched by ${ownerText(meta.launchedBy)} (reconcile --fix --force removes it)`;
          } else if (options.fix) {
            await attempt(finding, async () => {
              if (domain.state !== 'shutoff') await api.destroyDomain(domain.name).catch(() => undefined);
              await api.undefineDomain(domain.name);
              await ctx.queues.run(leader.name, async () => {
                for (const ref of own)
                  if ((await volumesOf(ref.pool)).has(ref.volume)) await api.deleteVolume(ref.pool, ref.volume);
              });
              await ctx.credentials.delete(meta.name);
            });
          }
          report.findings.push(finding);
        }
        // Orphans: instance volumes in the entries' pools whose domain does not exist on this hypervisor.
        const seenPools = new Set<string>();
        for (const member of members) {
          if (seenPools.has(member.pool)) continue;
          seenPools.add(member.pool);
          let volumes: Set<string>;
          try {
            volumes = await volumesOf(member.pool);
          } catch (err) {
            report.unreachable.push({ host: member.name, error: `pool ${member.pool}: ${messageOf(err)}` });
            continue;
          }
          for (const volume of volumes) {
            const owner = instanceOfVolume(volume);
            if (!isInstanceVolume(volume) || !owner || names.has(owner) || ctx.launching.has(owner)) continue;
            const finding: ReconcileFinding = {
              kind: 'orphan-volume',
              host: member.name,
              object: volume,
              detail: `volume in pool ${member.pool} with no domain ${owner}`,
            };
            const changed = await api.volumeChangedAt(member.pool, volume).catch(() => undefined);
            const age = changed === undefined ? undefined : ctx.now() - changed;
            if (age !== undefined && age < ORPHAN_GRACE_MS) {
              finding.deferred = true;
              finding.detail += `, changed ${Math.max(0, Math.round(age / 1000))} s ago: a launch may be under way in another process, so it is left alone until it is ${ORPHAN_GRACE_MS / 60_000} min old`;
            } else if (options.fix)
              await attempt(finding, () => ctx.queues.run(leader.name, () => api.deleteVolume(member.pool, volume)));
            report.findings.push(finding);
          }
        }
      } catch (err) {
        for (const member of members) report.unreachable.push({ host: member.name, error: messageOf(err) });
      }
    }),
  );
  // Credentials may belong to a proxy on a host that could not be asked: judged only when all answered.
  if (!report.unreachable.length) {
    for (const name of await ctx.credentials.names()) {
      if (fleet.has(name) || instanceIds(name).some((id) => ctx.launching.has(id))) continue;
      const finding: ReconcileFinding = {
        kind: 'stale-credentials',
        object: name,
        detail: `stored credentials of proxy ${name}, which exists on no host`,
      };
      if (options.fix) await attempt(finding, () => ctx.credentials.delete(name));
      report.findings.push(finding);
    }
  }
  report.findings.sort(
    (a, b) =>
      a.kind.localeCompare(b.kind) || (a.host ?? '').localeCompare(b.host ?? '') || a.object.localeCompare(b.object),
  );
  return report;
}

async function attempt(finding: ReconcileFinding, fix: () => Promise<void>): Promise<void> {
  try {
    await fix();
    finding.fixed = true;
  } catch (err) {
    finding.fixed = false;
    finding.error = messageOf(err);
  }
}
