/**
 * Traffic and CPU from a real libvirtd: a proxy launched from a tiny base (no --wait: its
 * qemu runs, no guest needs to boot) has the stats fields the counters are read from, its
 * CPU time grows, and `egress-desk proxies top --once --json` reports rates for it.
 */
import { spawn } from 'node:child_process';

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DomainStatsType,
  GetAllDomainStatsFlags,
  type LibvirtClient,
  findDomainByName,
  getAllDomainStats,
} from '../../electron/libvirt/index.js';
import { ClientApi } from '../../electron/services/provider/kvm/client-api.js';
import { baseVolumeName, instanceId } from '../../electron/services/provider/kvm/names.js';
import type { FleetStats } from '../../shared/stats.js';
import { removeProxy, systemClient } from '../support/libvirt.js';
import { type ProviderHome, localProviderHome, tinyImage } from '../support/provider.js';
import { cliBin } from '../support/dist.js';
import { testEnv } from '../support/env.js';
import { tempDir } from '../support/temp-dir.js';

const env = testEnv();
const NAME = 'egtest-stats-1';
let client: LibvirtClient;
let sha256: string;
let cli: ProviderHome['proxies'];
let providerHome: ProviderHome;

beforeAll(async () => {
  const home = tempDir('egress-stats-');
  const image = tinyImage(home);
  sha256 = image.sha256;
  providerHome = localProviderHome(env, 'egress-stats-', home, { name: 'tiny', ...image });
  cli = providerHome.proxies;
  client = await systemClient();
  await removeProxy(client, NAME);
  const launched = await cli('launch', NAME, '--allow', '192.168.150.0/24', '--json');
  expect(launched.stderr).toBe('');
  expect(launched.code).toBe(0);
}, 120_000);

afterAll(async () => {
  if (!client) return;
  await removeProxy(client, NAME, [baseVolumeName(sha256, 'qcow2')]);
  await client.close();
});

describe('domain stats on qemu:///system', () => {
  it('one call returns the running proxy with the cpu and net fields the counters are read from', async () => {
    const dom = await findDomainByName(client, instanceId(NAME));
    expect(dom?.id).toBeGreaterThan(0);
    const records = await getAllDomainStats(client, {
      stats: DomainStatsType.CPU_TOTAL | DomainStatsType.INTERFACE,
      flags: GetAllDomainStatsFlags.ACTIVE | GetAllDomainStatsFlags.NOWAIT,
    });
    const mine = records.find((r) => r.dom.name === instanceId(NAME));
    expect(mine).toBeDefined();
    // The names countersFromStats reads: a misspelt one would read as zero traffic for ever.
    expect(Number(mine!.stats['net.count'])).toBeGreaterThanOrEqual(1);
    for (const f of ['cpu.time', 'net.0.rx.bytes', 'net.0.rx.pkts', 'net.0.tx.bytes', 'net.0.tx.pkts'])
      expect(mine!.stats, f).toHaveProperty([f]);
    // ACTIVE: no shut-off domain among them.
    expect(records.every((r) => r.dom.id > 0)).toBe(true);

    const api = new ClientApi(client);
    const first = (await api.domainCounters()).find((c) => c.name === instanceId(NAME))!;
    await new Promise((r) => setTimeout(r, 1000));
    const second = (await api.domainCounters()).find((c) => c.name === instanceId(NAME))!;
    expect(second.id).toBe(dom!.id);
    expect(second.cpuTimeNs).toBeGreaterThan(first.cpuTimeNs);
    for (const k of ['rxBytes', 'rxPackets', 'txBytes', 'txPackets'] as const)
      expect(second[k]).toBeGreaterThanOrEqual(first[k]);
  });

  it('proxies top --once --json: rates for the proxy, CPU above zero', async () => {
    const r = await cli('top', '--once', '--json', '--interval', '2');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const stats = JSON.parse(r.stdout) as FleetStats;
    const mine = stats.proxies.find((p) => p.name === NAME);
    expect(mine).toMatchObject({ host: 'local', domain: instanceId(NAME) });
    expect(mine!.rates).not.toBeNull();
    expect(mine!.rates!.cpuPercent).toBeGreaterThan(0);
    expect(stats.intervalMs).toBe(2000);
  }, 60_000);

  it('proxies top (not a terminal): a plain table a reading, rates from the second one; SIGTERM ends it with 0', async () => {
    const child = spawn(
      process.execPath,
      [cliBin, '--config', providerHome.config, 'proxies', 'top', '--interval', '1'],
      {
        env: {
          PATH: process.env.PATH ?? '',
          HOME: providerHome.home,
          EGRESS_DESK_HOME: join(providerHome.home, 'data'),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    const closed = new Promise<number | null>((r) => child.on('close', r));
    const started = Date.now();
    while (
      (out.match(/^egress-desk proxies top: every 1 s, by traffic, /gm) ?? []).length < 3 &&
      Date.now() - started < 30_000
    )
      await new Promise((r) => setTimeout(r, 100));
    child.kill('SIGTERM');
    expect(await closed).toBe(0);
    expect(err).toBe('');
    expect(out).not.toContain('\x1b['); // no screen control when stdout is not a terminal
    const tables = out.split(/^egress-desk proxies top: .*$/m).slice(1);
    expect(tables.length).toBeGreaterThanOrEqual(3);
    const row = tables
      .at(-1)!
      .split('\n')
      .find((l) => l.startsWith(`${NAME} `));
    expect(row).toMatch(
      new RegExp(
        `^${NAME}\\s+local\\s+\\d+(\\.\\d)? \\S+/s\\s+\\d+(\\.\\d)? \\S+/s\\s+[\\d.]+\\s+[\\d.]+\\s+[\\d.]+%$`,
      ),
    );
  }, 60_000);
});
