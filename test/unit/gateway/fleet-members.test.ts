/**
 * The gateway's members from the fleet (electron/services/gateway/fleet-members.ts) and its
 * access log (access-log.ts, issue 40): a proxy is used only while it runs, is healthy or
 * slow, has an address and credentials here and is not a replacement in waiting, and the
 * reason is told for the others; a member on an SSH host is reached through that host's
 * stream; the access log is JSON lines, 0600, rotated while it runs.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ACCESS_LOG_FILE, AccessLog, accessLogPath } from '../../../electron/services/gateway/access-log.js';
import { healthStates, membersOf, unusableReason } from '../../../electron/services/gateway/fleet-members.js';
import type { ProxyRecord } from '../../../electron/services/provider/kvm/context.js';
import type { FleetHealth, HealthState } from '../../../shared/health.js';
import { tempDir } from '../../support/temp-dir.js';
import { proxyRecord } from '../renderer/fake-bridge.js';

const withAddress = (name: string, over: Partial<ProxyRecord> = {}): ProxyRecord =>
  ({
    ...proxyRecord({ name }),
    addresses: [
      { address: 'fe80::1', prefix: 64, family: 'ipv6', source: 'lease' },
      { address: `192.0.2.${name.length}`, prefix: 24, family: 'ipv4', source: 'lease' },
    ],
    ...over,
  }) as ProxyRecord;

const healthOf = (entries: [ProxyRecord, HealthState][]): FleetHealth => ({
  at: 1,
  proxies: entries.map(([p, state]) => ({ host: p.host, domain: p.id, name: p.name, state, since: 0 })),
});

describe('the gateway members from the fleet', () => {
  const ok = withAddress('ok', { labels: { team: 'web' } });
  const slow = withAddress('slow');
  const failing = withAddress('failing');
  const stopped = withAddress('stopped', { state: 'shutoff' });
  const bare = withAddress('bare', { addresses: [] });
  const noCreds = withAddress('nocreds');
  const waiting = withAddress('waiting', { replacing: 'ep-old' });
  const fresh = withAddress('fresh');
  const all = [ok, slow, failing, stopped, bare, noCreds, waiting, fresh];
  const health = healthOf([
    [ok, 'healthy'],
    [slow, 'slow'],
    [failing, 'failing'],
    [stopped, 'unknown'],
    [bare, 'unknown'],
    [noCreds, 'healthy'],
    [waiting, 'healthy'],
  ]);
  const creds = new Map(
    all.filter((p) => p !== noCreds).map((p) => [p.name, { username: 'u', password: `pw-${p.name}` }]),
  );

  it('uses only running, healthy or slow proxies with an address and credentials, not a replacement in waiting', () => {
    const members = membersOf(all, health, creds);
    expect(members.filter((m) => m.usable).map((m) => m.name)).toEqual(['ok', 'slow']);
    expect(members.find((m) => m.name === 'ok')).toMatchObject({
      key: `edge-a/${ok.id}`,
      host: 'edge-a',
      labels: { team: 'web' },
      address: '192.0.2.2',
      port: 3128,
      credentials: { username: 'u', password: 'pw-ok' },
    });
    expect(all.map((p) => unusableReason(p, healthStates(health), creds))).toEqual([
      undefined,
      undefined,
      'failing',
      'shutoff',
      'no address',
      'no credentials here',
      'replacement',
      'not probed yet',
    ]);
  });

  it("reaches a member through its host's stream where the host has one", async () => {
    const asked: string[] = [];
    const [m] = membersOf([ok], health, creds, (host) =>
      host === 'edge-a' ? async (address, port) => (asked.push(`${address}:${port}`), new PassThrough()) : undefined,
    );
    expect(m!.tunnel).toBeDefined();
    await m!.tunnel!();
    expect(asked).toEqual(['192.0.2.2:3128']);
    expect(membersOf([ok], health, creds, () => undefined)[0]!.tunnel).toBeUndefined();
  });
});

describe('the gateway access log', () => {
  it('writes JSON lines, 0600, and rotates past its size while it runs', () => {
    const file = accessLogPath(tempDir('egress-gw-log-'));
    const log = new AccessLog(file, { maxBytes: 2_000, keep: 2, sync: true });
    const entry = (i: number) => ({
      at: new Date(i).toISOString(),
      client: 'ci',
      source: '127.0.0.1',
      method: 'CONNECT',
      target: `example.com:${i}`,
      tries: 1,
      bytesIn: i,
      bytesOut: i,
      ms: 1,
      outcome: 'ok' as const,
    });
    for (let i = 0; i < 60; i++) log.write(entry(i));
    log.close();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(join(file, '..')).sort()).toEqual([
      'gateway-access.log',
      'gateway-access.log.1',
      'gateway-access.log.2',
    ]);
    const lines = [`${file}.2`, `${file}.1`, file].flatMap((f) => {
      expect(statSync(f).size).toBeLessThan(2_000 + 200);
      return readFileSync(f, 'utf8').split('\n').filter(Boolean);
    });
    // The newest lines, in order, the oldest rotated out of the two kept files.
    const kept = lines.map((l) => JSON.parse(l) as { bytesIn: number });
    expect(kept.at(-1)).toEqual(entry(59));
    expect(kept.map((e) => e.bytesIn)).toEqual(kept.map((_, i) => 60 - kept.length + i));
    expect(kept.length).toBeGreaterThan(20);
  });

  it('closes at once after it opens (a gateway that could not listen) without throwing, and writes nothing', async () => {
    const file = accessLogPath(tempDir('egress-gw-log-'));
    const early = new AccessLog(file);
    expect(() => early.close()).not.toThrow();
    await expect.poll(() => readdirSync(join(file, '..'))).toEqual([ACCESS_LOG_FILE]);
    expect(readFileSync(file, 'utf8')).toBe('');
  });
});
