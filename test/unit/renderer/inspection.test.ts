/** Which events concern the inspected proxy, and why Copy URL is disabled (renderer/inspection.ts). */
import { describe, expect, it } from 'vitest';
import type { ProxyInspectionView, ProxyRecordView } from '../../../shared/proxies.js';
import { concerns, copyUrlBlocker } from '../../../renderer/inspection.js';
import { inspectionOf, proxyRecord } from './fake-bridge.js';

const record = proxyRecord();
const inspection = (
  over: Partial<ProxyInspectionView> = {},
  proxy: Partial<ProxyRecordView> = {},
): ProxyInspectionView => inspectionOf({ ...record, ...proxy }, over);

describe('concerns', () => {
  it('matches the event by name, or by host and domain', () => {
    expect(
      concerns(
        { host: 'edge-a', domain: 'x', name: 'web-1', event: 'STARTED', removed: false, proxy: record },
        'web-1',
        undefined,
      ),
    ).toBe(true);
    expect(
      concerns({ host: 'edge-a', domain: 'x', name: 'web-1', event: 'DELETED', removed: true }, 'web-1', undefined),
    ).toBe(true);
    // A removal may carry neither name nor proxy: the domain of the inspection says it is this one.
    expect(
      concerns({ host: 'edge-a', domain: record.id, event: 'UNDEFINED', removed: true }, 'web-1', inspection()),
    ).toBe(true);
  });

  it('ignores other proxies, and the same domain name on another host', () => {
    expect(
      concerns(
        {
          host: 'edge-a',
          domain: 'ep-web-2',
          name: 'web-2',
          event: 'STARTED',
          removed: false,
          proxy: proxyRecord({ name: 'web-2', id: 'ep-web-2' }),
        },
        'web-1',
        inspection(),
      ),
    ).toBe(false);
    expect(
      concerns({ host: 'edge-b', domain: record.id, event: 'UNDEFINED', removed: true }, 'web-1', inspection()),
    ).toBe(false);
    expect(concerns({ host: 'edge-a', domain: record.id, event: 'UNDEFINED', removed: true }, 'web-1', undefined)).toBe(
      false,
    );
  });
});

describe('copyUrlBlocker', () => {
  const address = { address: '192.168.150.10', prefix: 24, family: 'ipv4' as const, source: 'lease' as const };

  it('allows copying once there is an address', () => {
    expect(copyUrlBlocker(inspection({ addresses: [address] }), false)).toBeUndefined();
  });

  it('says why not: gone, stopped, or no address yet', () => {
    expect(copyUrlBlocker(inspection({ addresses: [address] }), true)).toMatch(/no longer exists/);
    expect(copyUrlBlocker(inspection({}, { state: 'shutoff' }), false)).toMatch(/^The proxy is shutoff: .*Start it/);
    expect(copyUrlBlocker(inspection(), false)).toMatch(/^No address yet: .*Refresh/);
  });
});
