/**
 * Base volumes (`egress-base-<sha256>.*`, one per image digest per pool, and the baked
 * `egress-baked-<sha256>-<recipe>.qcow2`, one per digest and bake recipe) are a host's cache
 * of images and were never removed; a baked volume of an older recipe is no longer used by
 * launches and goes once no proxy backs onto it. This finds the ones nothing uses, per hypervisor
 * (entries that reach the same one are looked at once), and removes the ones a person
 * confirmed. "Uses" is judged from libvirt alone, conservatively:
 *
 * - a volume in any pool of the hypervisor's entries whose backing store is the base's path
 *   (every proxy's overlay; a proxy stopped or broken still holds its overlay);
 * - a domain whose XML names the base's path or volume name (a disk attached by hand);
 * - a base written within the last {@link ORPHAN_GRACE_MS}: an upload under way, or one a
 *   launch in another process is about to back an overlay onto.
 *
 * A pool that cannot be read makes every base of that hypervisor "in use": nothing is
 * removed on a guess.
 */
import type { ResolvedKVMHost } from '../../../../../shared/config.js';
import type { ProviderContext } from '../context.js';

import { groupHypervisors } from '../hypervisors.js';
import type { LibvirtApi } from '../libvirt-api.js';
import { isBaseVolume } from '../names.js';
import { ORPHAN_GRACE_MS } from '../orphan-grace.js';
import { messageOf } from '../../../../../shared/errors.js';

/** A base volume nothing uses. */
export interface UnusedBase {
  /** The first entry of its hypervisor whose pool holds it. */
  host: string;
  pool: string;
  volume: string;
  bytes: number;
}

export interface BasePruneReport {
  unused: UnusedBase[];
  /** Base volumes kept, with why (in use by whom, too young, pool unreadable). */
  kept: Array<{ host: string; pool: string; volume: string; why: string }>;
  unreachable: Array<{ host: string; error: string }>;
}

/** Finds base volumes nothing uses, on every reachable hypervisor; changes nothing. */
export async function findUnusedBases(ctx: ProviderContext): Promise<BasePruneReport> {
  const report: BasePruneReport = { unused: [], kept: [], unreachable: [] };
  const { hypervisors, unreachable } = await groupHypervisors(ctx);
  for (const u of unreachable) report.unreachable.push({ host: u.host.name, error: u.error });
  await Promise.all(
    hypervisors.map(async ({ api, members }) => {
      try {
        await judgeHypervisor(ctx, api, members, report);
      } catch (err) {
        for (const m of members) report.unreachable.push({ host: m.name, error: messageOf(err) });
      }
    }),
  );
  report.unused.sort((a, b) => a.host.localeCompare(b.host) || a.volume.localeCompare(b.volume));
  return report;
}

async function judgeHypervisor(
  ctx: ProviderContext,
  api: LibvirtApi,
  members: readonly ResolvedKVMHost[],
  report: BasePruneReport,
): Promise<void> {
  const pools = [...new Map(members.map((m) => [m.pool, m])).values()];
  const domains = await api.listDomains();
  // Every pool's volumes, and each non-base volume's backing path: who backs onto what.
  const contents = await Promise.all(
    pools.map(async (entry) => {
      await ctx.queues.run(entry.name, () => api.refreshPool(entry.pool));
      const names = await api.listVolumes(entry.pool);
      const backing = await Promise.all(
        names
          .filter((n) => !isBaseVolume(n))
          .map(async (n) => [n, await api.volumeBackingPath(entry.pool, n)] as const),
      );
      return { entry, names, backing };
    }),
  );
  for (const { entry, names } of contents) {
    for (const volume of names.filter(isBaseVolume)) {
      const info = await api.getVolume(entry.pool, volume);
      if (!info) continue;
      const keep = (why: string) => report.kept.push({ host: entry.name, pool: entry.pool, volume, why });
      const overlay = contents.flatMap((c) =>
        c.backing.filter(([, path]) => path === info.path).map(([n]) => `${c.entry.pool}/${n}`),
      )[0];
      if (overlay) {
        keep(`backs volume ${overlay}`);
        continue;
      }
      const domain = domains.find(
        (d) =>
          d.xml.includes(info.path) || d.xml.includes(`volume='${volume}'`) || d.xml.includes(`volume="${volume}"`),
      );
      if (domain) {
        keep(`named by domain ${domain.name}`);
        continue;
      }
      const changed = await api.volumeChangedAt(entry.pool, volume);
      if (changed !== undefined && ctx.now() - changed < ORPHAN_GRACE_MS) {
        keep(`written ${Math.round((ctx.now() - changed) / 1000)} s ago (an upload, or a launch about to use it)`);
        continue;
      }
      report.unused.push({ host: entry.name, pool: entry.pool, volume, bytes: info.allocationBytes });
    }
  }
}

/**
 * Removes base volumes a person confirmed, each judged again just before (a launch may
 * have started using one since it was shown). Returns what was removed and what was kept.
 */
export async function removeUnusedBases(
  ctx: ProviderContext,
  confirmed: readonly UnusedBase[],
): Promise<{ removed: UnusedBase[]; kept: BasePruneReport['kept'] }> {
  const now = await findUnusedBases(ctx);
  const stillUnused = (b: UnusedBase) =>
    now.unused.some((u) => u.host === b.host && u.pool === b.pool && u.volume === b.volume);
  const removed: UnusedBase[] = [];
  const kept = now.kept.filter((k) =>
    confirmed.some((c) => c.pool === k.pool && c.volume === k.volume && c.host === k.host),
  );
  for (const base of confirmed) {
    if (!stillUnused(base)) continue;
    const api = await ctx.apiFor(base.host);
    await ctx.queues.run(base.host, () => api.deleteVolume(base.pool, base.volume));
    removed.push(base);
  }
  return { removed, kept };
}
