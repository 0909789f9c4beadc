import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { type DomainSpec, buildDomainXml } from '../../../electron/services/provider/kvm/xml/domain-xml.js';
import { parseInstanceMetadata } from '../../../electron/services/provider/kvm/xml/metadata.js';
import {
  instanceId,
  instanceMac,
  instanceUuid,
  instanceVolumes,
} from '../../../electron/services/provider/kvm/names.js';
import { sampleMetadata } from '../../support/proxy-samples.js';

const CREATED = '2026-01-01T00:00:00.000Z';

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  isArray: (n) => ['disk', 'controller', 'interface'].includes(n),
});
const id = instanceId('web-1');
const vols = instanceVolumes(id);

function spec(over: Partial<DomainSpec> = {}): DomainSpec {
  return {
    name: id,
    uuid: instanceUuid(id),
    title: 'egress proxy web-1',
    vcpus: 2,
    memoryMiB: 512,
    domainType: 'qemu',
    pool: 'default',
    rootVolume: vols.root,
    seedVolume: vols.seed,
    nic: { network: 'default' },
    mac: instanceMac(id, CREATED),
    metadata: sampleMetadata({ host: 'local' }),
    ...over,
  };
}

function parse(xml: string) {
  return parser.parse(xml).domain;
}

describe('domain XML', () => {
  it('round-trips every field', () => {
    const xml = buildDomainXml(spec());
    const d = parse(xml);
    expect(d.type).toBe('qemu');
    expect(d.name).toBe(id);
    expect(d.uuid).toBe(instanceUuid(id));
    expect(d.title).toBe('egress proxy web-1');
    expect(d.memory).toEqual({ unit: 'MiB', '#text': '512' });
    expect(d.vcpu['#text']).toBe('2');
    expect(d.os.type).toEqual({ arch: 'x86_64', machine: 'q35', '#text': 'hvm' });
    expect(d.features).toHaveProperty('acpi');
    expect(d.cpu).toBeUndefined(); // TCG: QEMU's own CPU model
    expect(d.devices.graphics).toBeUndefined();
    expect(parseInstanceMetadata(xml)).toEqual({ ...spec().metadata, extra: [] });
  });

  it('references disks by pool volume, never by path, with the seed on virtio-scsi', () => {
    const d = parse(buildDomainXml(spec()));
    const [root, seed] = d.devices.disk;
    expect(root).toMatchObject({
      type: 'volume',
      device: 'disk',
      source: { pool: 'default', volume: vols.root },
      target: { dev: 'vda', bus: 'virtio' },
      driver: { type: 'qcow2' },
    });
    expect(seed).toMatchObject({
      type: 'volume',
      device: 'cdrom',
      source: { pool: 'default', volume: vols.seed },
      target: { bus: 'scsi' },
    });
    expect(seed).toHaveProperty('readonly');
    expect(d.devices.controller).toEqual([{ type: 'scsi', index: '0', model: 'virtio-scsi' }]);
    expect(buildDomainXml(spec())).not.toMatch(/<source file=|\/var\/lib/);
  });

  it('has a virtio NIC with the stable MAC, on a network or a bridge', () => {
    const onNet = parse(buildDomainXml(spec())).devices.interface[0];
    expect(onNet).toMatchObject({
      type: 'network',
      mac: { address: instanceMac(id, CREATED) },
      source: { network: 'default' },
      model: { type: 'virtio' },
    });
    const onBridge = parse(buildDomainXml(spec({ nic: { bridge: 'br0' } }))).devices.interface[0];
    expect(onBridge).toMatchObject({ type: 'bridge', source: { bridge: 'br0' } });
  });

  it('has a serial console, the guest agent channel and virtio-rng', () => {
    const dev = parse(buildDomainXml(spec())).devices;
    expect(dev.serial).toMatchObject({ type: 'pty' });
    expect(dev.console).toMatchObject({ type: 'pty', target: { type: 'serial' } });
    expect(dev.channel).toMatchObject({ type: 'unix', target: { type: 'virtio', name: 'org.qemu.guest_agent.0' } });
    expect(dev.rng).toMatchObject({ model: 'virtio' });
  });

  it('picks the CPU mode: host-model under KVM by default, never host-passthrough unless asked', () => {
    expect(parse(buildDomainXml(spec({ domainType: 'kvm' }))).cpu).toEqual({ mode: 'host-model' });
    expect(parse(buildDomainXml(spec({ domainType: 'kvm', cpuMode: 'host-passthrough' }))).cpu).toEqual({
      mode: 'host-passthrough',
    });
    expect(buildDomainXml(spec({ domainType: 'kvm' }))).not.toContain('host-passthrough');
  });

  it('escapes the title and rejects control characters and unsafe names', () => {
    const d = parse(buildDomainXml(spec({ title: 'a <b> & "c"' })));
    expect(d.title).toBe('a <b> & "c"');
    expect(() => buildDomainXml(spec({ title: 'two\nlines' }))).toThrow();
    expect(() => buildDomainXml(spec({ name: 'a/b' }))).toThrow();
    expect(() => buildDomainXml(spec({ pool: 'po ol' }))).toThrow();
    expect(() => buildDomainXml(spec({ nic: { bridge: 'br0"/><x' } }))).toThrow();
  });
});
