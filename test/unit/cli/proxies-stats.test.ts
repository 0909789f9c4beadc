/** `egress-desk proxies stats`: the join of stats and health, its table and JSON schema (pure), and its usage errors through the built binary. */
import { describe, expect, it } from 'vitest';
import { statsTable } from '../../../electron/cli/commands/proxies-stats.js';
import { fleetFigures } from '../../../electron/services/app/fleet-figures.js';
import { FleetFiguresSchema } from '../../../shared/fleet-figures.js';
import type { FleetHealth } from '../../../shared/health.js';
import type { FleetStats } from '../../../shared/stats.js';
import { proxiesOnUnreachableHost } from '../../support/unreachable-host.js';

const stats: FleetStats = {
  at: 1000,
  intervalMs: 5000,
  failedHosts: [{ host: 'edge-b', error: 'no answer within 10 s' }],
  proxies: [
    {
      host: 'edge-a',
      domain: 'egress-web',
      name: 'web',
      rates: { inBps: 2048, outBps: 1024, inPps: 2, outPps: 1, cpuPercent: 3.25 },
      totals: { inBytes: 5 * 1024 * 1024, outBytes: 1024, inPackets: 10, outPackets: 5, cpuSeconds: 12 },
    },
    { host: 'edge-a', domain: 'egress-api', name: 'api', rates: null },
  ],
};
const health: FleetHealth = {
  at: 1000,
  proxies: [
    {
      host: 'edge-a',
      domain: 'egress-web',
      name: 'web',
      state: 'healthy',
      since: 0,
      checkedAt: 900,
      latencyMs: 42,
      status: 200,
      exitAddress: '198.51.100.7',
      exitWarning: 'changed from 198.51.100.6',
    },
    {
      host: 'edge-a',
      domain: 'egress-api',
      name: 'api',
      state: 'failing',
      since: 500,
      checkedAt: 900,
      lastError: 'connect ECONNREFUSED',
    },
    { host: 'edge-a', domain: 'egress-gone', name: 'gone', state: 'healthy', since: 0 },
  ],
};

describe('proxies stats (figures)', () => {
  it('joins each proxy of the stats with its health by host and domain, by name; a listing failure comes first and is not repeated', () => {
    const f = fleetFigures(stats, health, [{ host: 'edge-b', error: 'not reachable: refused' }]);
    expect(FleetFiguresSchema.parse(f)).toEqual(f);
    expect(f.proxies.map((p) => [p.name, p.health?.state, p.totals?.cpuSeconds ?? null])).toEqual([
      ['api', 'failing', null],
      ['web', 'healthy', 12],
    ]);
    expect(f.failedHosts).toEqual([{ host: 'edge-b', error: 'not reachable: refused' }]);
    expect(fleetFigures(stats, { at: 0, proxies: [] }).proxies.every((p) => p.health === null)).toBe(true);
  });

  it('the table: rates, totals, CPU, health, latency, exit address (flagged), then what is wrong', () => {
    const lines = statsTable(fleetFigures(stats, health)).trimEnd().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+HOST\s+IN\s+OUT\s+TOTAL IN\s+TOTAL OUT\s+CPU\s+HEALTH\s+LATENCY\s+EXIT$/);
    expect(lines[1]).toMatch(/^api\s+edge-a\s+-\s+-\s+-\s+-\s+-\s+failing\s+-\s+-$/);
    expect(lines[2]).toMatch(
      /^web\s+edge-a\s+2\.0 KiB\/s\s+1\.0 KiB\/s\s+5\.0 MiB\s+1\.0 KiB\s+3\.3%\s+healthy\s+42 ms\s+198\.51\.100\.7 \(!\)$/,
    );
    expect(lines.slice(3)).toEqual([
      '',
      'api: failing: connect ECONNREFUSED',
      'web: exit address: changed from 198.51.100.6',
    ]);
    expect(statsTable({ at: 0, failedHosts: [], proxies: [] })).toBe('no proxies\n');
  });
});

describe('proxies stats (usage)', () => {
  const cli = (...args: string[]) => proxiesOnUnreachableHost('egress-stats-cli-', 'stats', ...args);

  it('refuses a bad interval before touching a host', async () => {
    const bad = await cli('--interval', 'soon');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--interval: must be a whole number of seconds from 1 to 600/);
  });

  it('a NAME that is not listed: exit 1 naming it and the host that did not answer', async () => {
    const r = await cli('nope');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no proxy named "nope" on the hosts that answered \(not reachable: local\)/);
  });

  it('a host that cannot be reached: JSON valid against the schema with that host failed, exit 1', async () => {
    const r = await cli('--json', '--interval', '1');
    expect(r.code).toBe(1);
    const f = FleetFiguresSchema.parse(JSON.parse(r.stdout));
    expect(f.failedHosts).toEqual([{ host: 'local', error: expect.stringMatching(/not reachable: .*no-such-socket/) }]);
    expect(r.stderr).toMatch(/host local: not reachable/);
  });
});
