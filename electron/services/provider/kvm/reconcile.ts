/**
 * Finds what a crash or a hand-made change left behind, on every reachable host:
 * volumes named like ours with no domain, our domains whose volumes are gone, and
 * stored credentials of proxies that no longer exist. With `fix`, removes them.
 * Launches under way in this process are left alone (their volumes precede their domain).
 */
import type { ProviderContext } from './context.js';
import { messageOf } from './errors.js';
import { metadataOf } from './fleet.js';
import { instanceId, instanceOfVolume, instanceVolumes, isInstanceVolume } from './names.js';

export interface ReconcileFinding {
  kind: 'orphan-volume' | 'broken-domain' | 'stale-credentials';
  host?: string;
  /** Volume name, domain name or proxy name. */
  object: string;
  detail: string;
  fixed?: boolean;
  /** Why the fix failed. */
  error?: string;
}

export interface ReconcileReport {
  findings: ReconcileFinding[];
  /** Hosts that could not be checked. */
  unreachable: Array<{ host: string; error: string }>;
  fixed: boolean;
}

export async function reconcile(ctx: ProviderContext, options: { fix?: boolean } = {}): Promise<ReconcileReport> {
  const report: ReconcileReport = { findings: [], unreachable: [], fixed: options.fix === true };
  const fleet = new Set<string>();
  await Promise.all(
    ctx.config.hosts.map(async (host) => {
      try {
        const api = await ctx.apiFor(host.name);
        // A refresh makes libvirt see volumes created or removed behind its back.
        await ctx.queues.run(host.name, () => api.refreshPool(host.pool));
        const [domains, volumes] = await Promise.all([api.listDomains(), api.listVolumes(host.pool)]);
        const names = new Set(domains.map((d) => d.name));
        const present = new Set(volumes);
        for (const volume of volumes) {
          const owner = instanceOfVolume(volume);
          if (!isInstanceVolume(volume) || !owner || names.has(owner) || ctx.launching.has(owner)) continue;
          const finding: ReconcileFinding = { kind: 'orphan-volume', host: host.name, object: volume, detail: `volume in pool ${host.pool} with no domain ${owner}` };
          if (options.fix) await attempt(finding, () => ctx.queues.run(host.name, () => api.deleteVolume(host.pool, volume)));
          report.findings.push(finding);
        }
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
          const wanted = instanceVolumes(domain.name);
          const missing = [wanted.root, wanted.seed].filter((v) => !present.has(v));
          if (!missing.length) continue;
          const finding: ReconcileFinding = { kind: 'broken-domain', host: host.name, object: domain.name, detail: `proxy ${meta.name}: volume${missing.length > 1 ? 's' : ''} ${missing.join(', ')} missing from pool ${host.pool}` };
          if (options.fix) {
            await attempt(finding, async () => {
              if (domain.state !== 'shutoff') await api.destroyDomain(domain.name).catch(() => undefined);
              await api.undefineDomain(domain.name);
              await ctx.queues.run(host.name, async () => {
                for (const v of [wanted.root, wanted.seed].filter((x) => present.has(x))) await api.deleteVolume(host.pool, v);
              });
              await ctx.credentials.delete(meta.name);
            });
          }
          report.findings.push(finding);
        }
      } catch (err) {
        report.unreachable.push({ host: host.name, error: messageOf(err) });
      }
    }),
  );
  // Credentials may belong to a proxy on a host that could not be asked: judged only when all answered.
  if (!report.unreachable.length) {
    for (const name of await ctx.credentials.names()) {
      if (fleet.has(name) || ctx.launching.has(instanceId(name))) continue;
      const finding: ReconcileFinding = { kind: 'stale-credentials', object: name, detail: `stored credentials of proxy ${name}, which exists on no host` };
      if (options.fix) await attempt(finding, () => ctx.credentials.delete(name));
      report.findings.push(finding);
    }
  }
  report.findings.sort((a, b) => a.kind.localeCompare(b.kind) || (a.host ?? '').localeCompare(b.host ?? '') || a.object.localeCompare(b.object));
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
