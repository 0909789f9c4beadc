/**
 * `egress-desk proxies top`: traffic and CPU per proxy from the hosts' stats, refreshed
 * every few seconds (keys: s to change the sort, q to quit), as plain tables one after
 * another when stdout is not a terminal; `--once` prints one measurement and exits.
 */
import { emitKeypressEvents } from 'node:readline';
import type { Command } from 'commander';
import { formatRate as rate } from '../../../shared/bytes.js';
import type { FleetStats, ProxyStats } from '../../../shared/stats.js';
import { FleetStatsSampler } from '../../services/app/fleet-stats.js';
import type { FleetListing } from '../../services/provider/kvm/fleet.js';
import type { CliContext } from '../context.js';
import { CliError, EXIT } from '../io.js';
import type { CommandKit } from '../kit.js';
import { formatTable, isTTY } from './images-shared.js';
import { withProvider } from './proxies-provider.js';

export const TOP_SORTS = ['traffic', 'cpu', 'name'] as const;
export type TopSort = (typeof TOP_SORTS)[number];

const traffic = (p: ProxyStats) => (p.rates ? p.rates.inBps + p.rates.outBps : -1);

/** The proxies in the order `top` shows them: busiest first (a proxy without figures last), or by name. */
export function sortStats(proxies: readonly ProxyStats[], sort: TopSort): ProxyStats[] {
  const byName = (a: ProxyStats, b: ProxyStats) => a.name.localeCompare(b.name) || a.host.localeCompare(b.host);
  const key = sort === 'cpu' ? (p: ProxyStats) => p.rates?.cpuPercent ?? -1 : traffic;
  return [...proxies].sort((a, b) => (sort === 'name' ? byName(a, b) : key(b) - key(a) || byName(a, b)));
}

/** The table `top` prints ("-": no figure yet, see ProxyStats.rates). */
export function topTable(stats: FleetStats, sort: TopSort): string {
  const rows = sortStats(stats.proxies, sort).map((p) => {
    const r = p.rates;
    return [
      p.name,
      p.host,
      r ? rate(r.inBps) : '-',
      r ? rate(r.outBps) : '-',
      r ? r.inPps.toFixed(1) : '-',
      r ? r.outPps.toFixed(1) : '-',
      r ? `${r.cpuPercent.toFixed(1)}%` : '-',
    ];
  });
  if (!rows.length) return 'no proxies\n';
  return formatTable([['NAME', 'HOST', 'IN', 'OUT', 'PKT/S IN', 'PKT/S OUT', 'CPU'], ...rows]);
}

function parseInterval(text: string | undefined): number {
  if (text === undefined) return 5;
  if (!/^\d{1,4}$/.test(text) || Number(text) < 1 || Number(text) > 3600)
    throw new CliError(
      `--interval: must be a whole number of seconds from 1 to 3600 (got ${JSON.stringify(text)})`,
      EXIT.usage,
    );
  return Number(text);
}

function reportFailures(ctx: CliContext, stats: FleetStats): void {
  for (const h of stats.failedHosts) ctx.io.stderr(`host ${h.host}: no stats: ${h.error}\n`);
}

/** Waits for Ctrl-C, SIGTERM, or q on a terminal; `s` calls `onSort`. */
function untilQuit(ctx: CliContext, onSort: () => void): Promise<void> {
  return new Promise((resolve) => {
    const stdin = ctx.io.stdin ?? process.stdin;
    const raw = isTTY(ctx, 'stdin') && process.stdin.isTTY && stdin === process.stdin;
    const onKey = (_: string, key: { name?: string; ctrl?: boolean } | undefined) => {
      if (key?.name === 'q' || (key?.ctrl && key.name === 'c')) done();
      else if (key?.name === 's') onSort();
    };
    const done = () => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      if (raw) {
        process.stdin.off('keypress', onKey);
        process.stdin.setRawMode(false);
        process.stdin.pause();
      }
      resolve();
    };
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
    if (raw) {
      emitKeypressEvents(process.stdin);
      process.stdin.setRawMode(true);
      process.stdin.on('keypress', onKey);
      process.stdin.resume();
    }
  });
}

export function registerTopCommand(proxies: Command, kit: CommandKit): void {
  proxies
    .command('top')
    .description(
      'traffic (bytes and packets a second in and out) and CPU of every proxy, from its host, refreshed (s: sort, q: quit)',
    )
    .option('--once', 'measure once (two readings --interval apart), print and exit')
    .option('--json', 'with --once: print the figures as JSON')
    .option('--interval <seconds>', 'seconds between readings (default 5)')
    .option('--sort <key>', `${TOP_SORTS.join(', ')} (default traffic)`)
    .action(
      kit.action(async (ctx, opts: { once?: boolean; json?: boolean; interval?: string; sort?: string }) => {
        const seconds = parseInterval(opts.interval);
        if (opts.json && !opts.once)
          throw new CliError('--json needs --once (a refreshing table is for people)', EXIT.usage);
        if (opts.sort !== undefined && !(TOP_SORTS as readonly string[]).includes(opts.sort))
          throw new CliError(`--sort: one of ${TOP_SORTS.join(', ')} (got ${JSON.stringify(opts.sort)})`, EXIT.usage);
        let sort = (opts.sort ?? 'traffic') as TopSort;
        return withProvider(ctx, async ({ provider, backend }) => {
          let listing: FleetListing = await provider.list();
          for (const h of listing.hosts) if (!h.ok) ctx.io.stderr(`host ${h.host} is not reachable: ${h.error}\n`);
          const screen = isTTY(ctx, 'stdout');
          let last: FleetStats | undefined;
          const draw = () => {
            if (!last) return;
            const head = `egress-desk proxies top: every ${seconds} s, by ${sort}${screen ? ' (s: sort, q: quit)' : ''}, ${new Date(last.at).toISOString()}\n`;
            ctx.io.stdout(`${screen ? '\x1b[H\x1b[2J' : ''}${head}${topTable(last, sort)}${screen ? '' : '\n'}`);
            reportFailures(ctx, last);
          };
          const sampler = new FleetStatsSampler({
            hosts: () => listing.hosts.filter((h) => h.ok).map((h) => h.host),
            apiFor: (host) => backend.apiFor(host),
            proxies: () => listing.proxies,
            watchIntervalMs: seconds * 1000,
            emit: (stats) => {
              last = stats;
              if (!opts.once) draw();
            },
          });
          // Someone is watching: the figures say so (intervalMs), and in the live table the cadence is --interval.
          const release = sampler.watch();
          if (opts.once) {
            await sampler.sample();
            await new Promise((r) => setTimeout(r, seconds * 1000));
            const stats = await sampler.sample();
            ctx.io.stdout(
              opts.json
                ? `${JSON.stringify({ ...stats, proxies: sortStats(stats.proxies, sort) }, null, 2)}\n`
                : topTable(stats, sort),
            );
            reportFailures(ctx, stats);
            return stats.failedHosts.length || listing.hosts.some((h) => !h.ok) ? EXIT.failed : EXIT.ok;
          }
          // Proxies launched or deleted elsewhere while top runs: the listing is taken again each minute.
          const relist = setInterval(
            () =>
              void provider.list().then(
                (l) => (listing = l),
                () => undefined,
              ),
            60_000,
          );
          sampler.start();
          await untilQuit(ctx, () => {
            sort = TOP_SORTS[(TOP_SORTS.indexOf(sort) + 1) % TOP_SORTS.length]!;
            draw();
          });
          release();
          clearInterval(relist);
          sampler.close();
          return EXIT.ok;
        });
      }),
    );
}
