import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { type ResolvedKVMConfig, withDefaults } from '../../../shared/config.js';
import { parseInstanceMetadata } from '../../../electron/services/provider/kvm/xml/metadata.js';
import { SpecError, renderProxy, resolveSpec, specHash } from '../../../electron/services/provider/kvm/render.js';
import { readSeedIso } from '../../support/iso9660-reader.js';

const config: ResolvedKVMConfig = withDefaults({
  hosts: [
    { name: 'local', address: 'local' },
    { name: 'edge-a', address: '203.0.113.10', bridge: 'br0', pool: 'proxies' },
  ],
  machineTypes: { small: { vcpus: 1, memoryMiB: 512 }, big: { vcpus: 4, memoryMiB: 4096, diskGiB: 40 } },
  images: { 'debian-12': { url: 'https://x.example/d.qcow2', sha256: 'ab'.repeat(32) } },
  defaults: { machineType: 'small', image: 'debian-12' },
});
const creds = () => ({ username: 'egress', password: 'fixed-password' });
const options = {
  domainType: 'qemu' as const,
  basePath: '/var/lib/libvirt/images/base.qcow2',
  createdAt: new Date('2026-12-02T10:00:00Z'),
};

describe('resolveSpec', () => {
  it('fills defaults from the config', () => {
    const r = resolveSpec({ name: 'web-1' }, config, config.hosts[0]!, creds);
    expect(r).toMatchObject({
      machineTypeName: 'small',
      machineType: { diskGiB: 10 },
      imageName: 'debian-12',
      port: 3128,
      credentials: creds(),
    });
    expect(r.allow).toContain('192.168.0.0/16');
    expect(r.allow).not.toContain('0.0.0.0/0');
  });

  it('turns authentication off only when asked', () => {
    expect(resolveSpec({ name: 'w', auth: false }, config, config.hosts[0]!, creds).credentials).toBeUndefined();
  });

  it('names what is missing', () => {
    expect(() => resolveSpec({ name: 'w', machineType: 'huge' }, config, config.hosts[0]!)).toThrow(
      /no machine type named "huge" \(known: small, big\)/,
    );
    expect(() => resolveSpec({ name: 'w', image: 'x' }, config, config.hosts[0]!)).toThrow(SpecError);
    const noImages = { ...config, images: {}, defaults: { machineType: 'small' } };
    expect(() => resolveSpec({ name: 'w' }, noImages, config.hosts[0]!)).toThrow(
      /config has none: add one under kvm.images/,
    );
  });
});

describe('renderProxy', () => {
  const spec = resolveSpec({ name: 'web-1', allow: ['192.168.150.0/24'] }, config, config.hosts[1]!, creds);
  const r = renderProxy(spec, options);

  it('puts the same metadata in the domain XML that it returns, with no secret', () => {
    expect(parseInstanceMetadata(r.domainXml)).toEqual(r.metadata);
    expect(r.metadata).toMatchObject({
      name: 'web-1',
      host: 'edge-a',
      machineType: 'small',
      port: 3128,
      createdAt: '2026-12-02T10:00:00.000Z',
    });
    expect(r.domainXml).not.toContain('fixed-password');
  });

  it('uses the host pool and bridge, and the seed volume is exactly the ISO size', () => {
    expect(r.domainXml).toContain(`<source pool="proxies" volume="${r.volumes.root}"/>`);
    expect(r.domainXml).toContain('<source bridge="br0"/>');
    expect(r.seedVolumeXml).toContain(`<capacity unit="bytes">${r.seedIso.length}</capacity>`);
    expect(r.overlayVolumeXml).toContain('<path>/var/lib/libvirt/images/base.qcow2</path>');
  });

  it('writes the three NoCloud files into a cidata seed', () => {
    const iso = readSeedIso(r.seedIso);
    expect(iso.volumeId).toBe('cidata');
    expect(iso.files.get('user-data')?.toString()).toBe(r.userData);
    expect(parse(iso.files.get('meta-data')!.toString())).toEqual({ 'instance-id': r.id, 'local-hostname': 'web-1' });
    expect(iso.files.get('vendor-data')?.toString()).toBe(config.vendorData);
    expect(r.userData).toContain('BasicAuth egress fixed-password');
  });

  it('is deterministic for identical inputs', () => {
    const again = renderProxy(spec, options);
    expect(again.seedIso.equals(r.seedIso)).toBe(true);
    expect(again.domainXml).toBe(r.domainXml);
  });

  it('spec hash: changes with what matters, not with the secret', () => {
    expect(specHash(spec)).toBe(specHash({ ...spec, credentials: { username: 'other', password: 'other' } }));
    expect(specHash(spec)).not.toBe(specHash({ ...spec, port: 8888 }));
    const { credentials: _none, ...withoutCredentials } = spec;
    expect(specHash(spec)).not.toBe(specHash(withoutCredentials));
    expect(specHash(spec)).toBe(specHash({ ...spec, allow: [...spec.allow].reverse() }));
  });
});
