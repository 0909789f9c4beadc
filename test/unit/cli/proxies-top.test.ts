/** `egress-desk proxies top`: its table and order (pure), and its usage errors through the built binary. */
import { describe, expect, it } from 'vitest';
import { sortStats, topTable } from '../../../electron/cli/commands/proxies-top.js';
import type { FleetStats, ProxyStats } from '../../../shared/stats.js';
import { proxiesOnUnreachableHost } from '../../support/unreachable-host.js';

const proxy = (name: string, inBps: number | null, cpuPercent = 0): ProxyStats => ({
  host: 'edge-a',
  domain: `egress-${name}`,
  name,
  rates: inBps === null ? null : { inBps, outBps: inBps / 2, inPps: inBps / 1000, outPps: inBps / 2000, cpuPercent },
});

const stats = (proxies: ProxyStats[]): FleetStats => ({ at: 0, intervalMs: 5000, failedHosts: [], proxies });

describe('proxies top (table)', () => {
  it('busiest first, a proxy without figures last with dashes; by CPU; by name', () => {
    const list = [proxy('quiet', 10, 50), proxy('new', null), proxy('busy', 3 * 1024 * 1024, 5)];
    expect(sortStats(list, 'traffic').map((p) => p.name)).toEqual(['busy', 'quiet', 'new']);
    expect(sortStats(list, 'cpu').map((p) => p.name)).toEqual(['quiet', 'busy', 'new']);
    expect(sortStats(list, 'name').map((p) => p.name)).toEqual(['busy', 'new', 'quiet']);
    const lines = topTable(stats(list), 'traffic').trimEnd().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+HOST\s+IN\s+OUT\s+PKT\/S IN\s+PKT\/S OUT\s+CPU$/);
    expect(lines[1]).toMatch(/^busy\s+edge-a\s+3\.0 MiB\/s\s+1\.5 MiB\/s\s+3145\.7\s+1572\.9\s+5\.0%$/);
    expect(lines[2]).toMatch(/^quiet\s+edge-a\s+10 B\/s\s+5 B\/s\s+0\.0\s+0\.0\s+50\.0%$/);
    expect(lines[3]).toMatch(/^new\s+edge-a\s+-\s+-\s+-\s+-\s+-$/);
    expect(topTable(stats([]), 'traffic')).toBe('no proxies\n');
  });
});

describe('proxies top (usage)', () => {
  const cli = (...args: string[]) => proxiesOnUnreachableHost('egress-top-cli-', 'top', ...args);

  it('refuses a bad interval, a bad sort and --json without --once before touching a host', async () => {
    const bad = await cli('--once', '--interval', '0');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--interval: must be a whole number of seconds from 1 to 3600/);
    expect((await cli('--once', '--sort', 'size')).stderr).toMatch(/--sort: one of traffic, cpu, name/);
    const json = await cli('--json');
    expect(json.code).toBe(2);
    expect(json.stderr).toMatch(/--json needs --once/);
  });

  it('a host that cannot be reached: said on stderr, exit 1, and the JSON still lists what could be measured', async () => {
    const r = await cli('--once', '--json', '--interval', '1');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/host local is not reachable: .*no-such-socket/);
    expect(JSON.parse(r.stdout)).toMatchObject({ failedHosts: [], proxies: [] });
  });
});
