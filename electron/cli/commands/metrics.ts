/**
 * `egress-desk metrics [--port N]`: the fleet's per-proxy counters and gauges for
 * Prometheus on http://127.0.0.1:N/metrics until Ctrl-C or SIGTERM; the stats sampler runs
 * at the watched cadence while it serves (someone scrapes), the health monitor every 30 s.
 */
import type { Command } from 'commander';
import { fleetFigures } from '../../services/app/fleet-figures.js';
import { fleetRegistry } from '../../services/metrics/fleet-metrics.js';
import { startMetricsServer } from '../../services/metrics/metrics-server.js';
import { gatewayMetrics } from '../../services/metrics/gateway-metrics.js';
import { accessLogPath } from '../../services/gateway/access-log.js';
import { followAccessLog } from '../../services/gateway/access-log-reader.js';
import { CliError, EXIT } from '../io.js';
import { untilStopped } from '../until-stopped.js';
import type { CommandKit } from '../kit.js';
import { openFleetMeters } from './fleet-meters.js';
import { withProvider } from './proxies-provider.js';

/** Default port (any free one with --port 0); chosen outside the ranges common exporters take by default. */
export const METRICS_PORT = 9477;

function parsePort(text: string | undefined): number {
  if (text === undefined) return METRICS_PORT;
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65535)
    throw new CliError(`--port: must be a port number from 0 to 65535 (got ${JSON.stringify(text)})`, EXIT.usage);
  return Number(text);
}

export function registerMetricsCommand(program: Command, kit: CommandKit): void {
  program
    .command('metrics')
    .description(
      `serve every proxy's traffic, CPU and health for Prometheus on 127.0.0.1 (default port ${METRICS_PORT})`,
    )
    .option('--port <n>', `port on 127.0.0.1 (default ${METRICS_PORT}; 0: any free one)`)
    .option('--interval <seconds>', 'seconds between stats readings while serving (default 5)')
    .action(
      kit.action(async (ctx, opts: { port?: string; interval?: string }) => {
        const port = parsePort(opts.port);
        const seconds = opts.interval === undefined ? 5 : Number(opts.interval);
        if (!Number.isInteger(seconds) || seconds < 1 || seconds > 3600)
          throw new CliError(
            `--interval: must be a whole number of seconds from 1 to 3600 (got ${JSON.stringify(opts.interval)})`,
            EXIT.usage,
          );
        return withProvider(ctx, async (p) => {
          const meters = await openFleetMeters(ctx, p, { statsIntervalMs: seconds * 1000 });
          let stopFollowing: (() => void) | undefined;
          try {
            const unreachable = () =>
              meters
                .listing()
                .hosts.flatMap((h) => (h.ok ? [] : [{ host: h.host, error: h.error ?? 'not reachable' }]));
            const registry = fleetRegistry(() =>
              fleetFigures(meters.stats.snapshot(), meters.health.snapshot(), unreachable()),
            );
            // The gateway's requests as they end, from its access log (whichever process runs it).
            const gateway = gatewayMetrics(registry);
            stopFollowing = followAccessLog(accessLogPath(ctx.dataDir), (entries) => gateway.count(entries));
            const server = await startMetricsServer(registry, port).catch((err: NodeJS.ErrnoException) => {
              if (err.code === 'EADDRINUSE')
                throw new CliError(
                  `port ${port} on 127.0.0.1 is in use: choose another with --port, or 0 for any free one`,
                  EXIT.failed,
                );
              throw err;
            });
            meters.start();
            // The first figures at once rather than after the first interval.
            void meters.stats.sample();
            void meters.health.check();
            ctx.io.stdout(`http://127.0.0.1:${server.port}/metrics\n`);
            ctx.io.stderr('press Ctrl-C to stop\n');
            await untilStopped();
            await server.close();
            return EXIT.ok;
          } finally {
            stopFollowing?.();
            meters.close();
          }
        });
      }),
    );
}
