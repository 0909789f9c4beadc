/** One sample proxy, `web-1` on `edge-a`, for the tests that need a valid one: its metadata element and its row. */
import type { InstanceMetadataInput } from '../../electron/services/provider/kvm/xml/metadata.js';
import type { ProxyRecordView } from '../../shared/proxies.js';

/** The metadata of a proxy `web-1` on `edge-a`; `over` replaces fields. */
export function sampleMetadata(over: Partial<InstanceMetadataInput> = {}): InstanceMetadataInput {
  return {
    formatVersion: 1,
    name: 'web-1',
    owner: 'egress-desk',
    host: 'edge-a',
    machineType: 'small',
    image: { name: 'debian-12', sha256: 'ab'.repeat(32) },
    port: 3128,
    createdAt: '2026-12-02T09:30:00.000Z',
    specHash: `sha256:${'cd'.repeat(32)}`,
    ...over,
  };
}

/** The proxy as the renderer lists it (shared/proxies.ts), not yet running; `over` replaces fields. */
export function sampleRecordView(over: Partial<ProxyRecordView> = {}): ProxyRecordView {
  const { name, host, image, port, createdAt, specHash, machineType, owner } = sampleMetadata();
  return {
    name,
    id: `ep-${name}-abcdef`,
    host,
    state: 'shutoff',
    port,
    machineType,
    image,
    createdAt,
    owner,
    specHash,
    addresses: [],
    ...over,
  };
}
