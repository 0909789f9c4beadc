/**
 * `egress-desk proxies stats [NAME] [--json]`: each proxy's rates now (two readings of its
 * host's counters `--interval` apart), its totals since its domain started, and its health
 * through the proxy (one probe, as the app's monitor makes it: latency, exit address and
 * what is wrong with it), as a table or as JSON checked against shared/fleet-figures.ts.
 */
import type { Command } from 'commander';
import { formatBytes, formatRate as rate } from '../../../shared/bytes.js';
import { type FleetFigures, FleetFiguresSchema, type ProxyFigures } from '../../../shared/fleet-figures.js';
import { fleetFigures } from '../../services/app/fleet-figures.js';
import { CliError, EXIT } from '../io.js';
import type { CommandKit } from '../kit.js';
import { openFleetMeters } from './fleet-meters.js';
import { formatTable } from './images-shared.js';
import { withProvider } from './proxies-provider.js';

function healthCell(p: ProxyFigures): string {
  return p.health?.state ?? 'unknown';
}

/** The table `proxies stats` prints ("-": no figure), then one line per proxy with something to say (why it fails, an exit warning). */
export function statsTable(figures: FleetFigures): string {
  if (!figures.proxies.length) return 'no proxies\n';
  const rows = figures.proxies.map((p) => {
    const r = p.rates;
    const t = p.totals;
    const h = p.health;
    return [
      p.name,
      p.host,
      r ? rate(r.inBps) : '-',
      r ? rate(r.outBps) : '-',
      t ? formatBytes(t.inBytes) : '-',
      t ? formatBytes(t.outBytes) : '-',
      r ? `${r.cpuPercent.toFixed(1)}%` : '-',
      healthCell(p),
      h?.latencyMs !== undefined ? `${h.latencyMs} ms` : '-',
      h?.exitAddress ? `${h.exitAddress}${h.exitWarning ? ' (!)' : ''}` : '-',
    ];
  });
  const notes: string[] = [];
  for (const p of figures.proxies) {
    const h = p.health;
    if (h?.lastError && h.state !== 'healthy' && h.state !== 'slow')
      notes.push(`${p.name}: ${h.state}: ${h.lastError}`);
    else if (h?.lastError) notes.push(`${p.name}: ${h.lastError}`);
    if (h?.exitWarning) notes.push(`${p.name}: exit address: ${h.exitWarning}`);
  }
  const table = formatTable([
    ['NAME', 'HOST', 'IN', 'OUT', 'TOTAL IN', 'TOTAL OUT', 'CPU', 'HEALTH', 'LATENCY', 'EXIT'],
    ...rows,
  ]);
  return notes.length ? `${table}\n${notes.join('\n')}\n` : table;
}

function parseInterval(text: string | undefined): number {
  if (text === undefined) return 5;
  if (!/^\d{1,3}$/.test(text) || Number(text) < 1 || Number(text) > 600)
    throw new CliError(
      `--interval: must be a whole number of seconds from 1 to 600 (got ${JSON.stringify(text)})`,
      EXIT.usage,
    );
  return Number(text);
}

export function registerStatsCommand(proxies: Command, kit: CommandKit): void {
  proxies
    .command('stats [name]')
    .description('rates now, totals since start, health, latency and exit address of every proxy (or of NAME)')
    .option('--json', 'print the figures as JSON')
    .option('--interval <seconds>', 'seconds between the two readings the rates come from (default 5)')
    .action(
      kit.action(async (ctx, name: string | undefined, opts: { json?: boolean; interval?: string }) => {
        const seconds = parseInterval(opts.interval);
        return withProvider(ctx, async (p) => {
          const meters = await openFleetMeters(ctx, p, { statsIntervalMs: seconds * 1000 });
          try {
            const listing = meters.listing();
            if (name !== undefined && !listing.proxies.some((r) => r.name === name)) {
              const down = listing.hosts.filter((h) => !h.ok).map((h) => h.host);
              throw new CliError(
                `no proxy named "${name}"${down.length ? ` on the hosts that answered (not reachable: ${down.join(', ')})` : ''}`,
                EXIT.failed,
              );
            }
            const measure = async () => {
              await meters.stats.sample();
              await new Promise((r) => setTimeout(r, seconds * 1000));
              return meters.stats.sample();
            };
            const [stats, health] = await Promise.all([measure(), meters.health.check()]);
            const unreachable = listing.hosts.flatMap((h) =>
              h.ok ? [] : [{ host: h.host, error: `not reachable: ${h.error ?? 'no answer'}` }],
            );
            const all = fleetFigures(stats, health, unreachable);
            const figures = FleetFiguresSchema.parse(
              name === undefined ? all : { ...all, proxies: all.proxies.filter((f) => f.name === name) },
            );
            ctx.io.stdout(opts.json ? `${JSON.stringify(figures, null, 2)}\n` : statsTable(figures));
            for (const f of figures.failedHosts) ctx.io.stderr(`host ${f.host}: ${f.error}\n`);
            return figures.failedHosts.length ? EXIT.failed : EXIT.ok;
          } finally {
            meters.close();
          }
        });
      }),
    );
}
