/**
 * libvirt itself accepts what the builders produce: the domain XML with
 * VIR_DOMAIN_DEFINE_VALIDATE (libvirt's RNG schema check), every volume XML against
 * libvirt's own storagevol schema (virt-xml-validate) and by creating it, and the metadata
 * element comes back in a form our parser reads.
 *
 * VIR_STORAGE_VOL_CREATE_VALIDATE is refused by the directory pools of some libvirt
 * releases (9.0: "unsupported flags (0x4) in function virStorageVolDefParseXML"), so the
 * provider creates volumes with flags 0 and this file checks them against libvirt's schema
 * with virt-xml-validate instead. Nothing here assumes what this host's libvirt or CPU
 * offers: the domain type is the one the provider picks for the host (KVM only where
 * libvirt offers it), and what differs between releases is asked, not pinned.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withDefaults } from '../../shared/config.js';
import {
  DomainDefine,
  type LibvirtClient,
  MetadataType,
  StorageVolCreate,
  getMetadataElement,
  setMetadataElement,
} from '../../electron/libvirt/index.js';
import { ClientApi } from '../../electron/services/provider/kvm/client-api.js';
import { defaultCpuMode } from '../../electron/services/provider/kvm/xml/domain-xml.js';
import { resolveDomainType } from '../../electron/services/provider/kvm/domain-type.js';
import {
  METADATA_KEY,
  METADATA_NS,
  buildInstanceMetadataXml,
  parseInstanceMetadata,
} from '../../electron/services/provider/kvm/xml/metadata.js';
import { renderProxy, resolveSpec } from '../../electron/services/provider/kvm/render.js';
import { readSeedIso } from '../support/iso9660-reader.js';
import { buildBaseVolumeXml } from '../../electron/services/provider/kvm/xml/volume-xml.js';
import { removeDomain, removeVolumes, systemClient, testPool } from '../support/libvirt.js';
import { testEnv } from '../support/env.js';
import { tempDir } from '../support/temp-dir.js';

const env = testEnv();
const digest = 'e'.repeat(64);
const baseName = 'egtest-validate-base.qcow2';
let client: LibvirtClient;
const created: { domains: string[]; volumes: string[] } = { domains: [], volumes: [baseName] };

const config = withDefaults({
  hosts: [{ name: 'local', address: 'local', pool: env.EGRESS_TEST_POOL, network: env.EGRESS_TEST_NETWORK }],
  machineTypes: { small: { vcpus: 1, memoryMiB: 256, diskGiB: 1 } },
  images: { test: { url: 'file:///dev/null', sha256: digest } },
  defaults: { machineType: 'small', image: 'test' },
});

beforeAll(async () => {
  client = await systemClient();
  await removeVolumes(client, [baseName]);
});

afterAll(async () => {
  for (const d of created.domains) await removeDomain(client, d);
  await removeVolumes(client, created.volumes);
  await client.close();
});

function schemaCheck(xml: string, schema: 'storagevol' | 'domain'): string {
  const file = join(tempDir('egress-xml-'), `${schema}.xml`);
  writeFileSync(file, xml);
  const r = spawnSync('virt-xml-validate', [file, schema], { encoding: 'utf8' });
  if (r.error) throw new Error(`virt-xml-validate is missing (libvirt-clients, libxml2-utils): ${r.error.message}`);
  return `${r.status} ${r.stdout}${r.stderr}`.trim();
}

describe('libvirt accepts the builders output', () => {
  it('a dir pool either validates a volume on create or refuses the flag as unsupported (the reason volumes are schema-checked too)', async () => {
    const pool = await testPool(client);
    const xml = buildBaseVolumeXml(baseName, 1024 * 1024, 'qcow2');
    const outcome = await client.call('STORAGE_VOL_CREATE_XML', { pool, xml, flags: StorageVolCreate.VALIDATE }).then(
      (vol) => ({ created: vol.name }),
      (err: unknown) => ({ refused: err instanceof Error ? err.message : String(err) }),
    );
    await removeVolumes(client, [baseName]);
    // Any other refusal means the builder's volume XML is wrong.
    if ('refused' in outcome) expect(outcome.refused).toMatch(/unsupported flags \(0x4\)/);
    else expect(outcome.created).toBe(baseName);
  });

  it('volumes (VALIDATE), seed upload and download byte for byte, and the domain (VALIDATE)', async () => {
    const pool = await testPool(client);
    const baseXml = buildBaseVolumeXml(baseName, 16 * 1024 * 1024, 'qcow2');
    expect(schemaCheck(baseXml, 'storagevol')).toMatch(/^0 .*validates/);
    const base = await client.call('STORAGE_VOL_CREATE_XML', { pool, xml: baseXml, flags: 0 });
    const basePath = await client.call('STORAGE_VOL_GET_PATH', { vol: base });

    const spec = resolveSpec({ name: 'egtest-validate', allow: ['192.168.150.0/24'] }, config, config.hosts[0]!);
    const r = renderProxy(spec, { domainType: 'qemu', basePath, createdAt: new Date() });
    created.volumes.push(r.volumes.root, r.volumes.seed);
    created.domains.push(r.id);
    await removeDomain(client, r.id);
    await removeVolumes(client, [r.volumes.root, r.volumes.seed]);

    expect(schemaCheck(r.overlayVolumeXml, 'storagevol')).toMatch(/^0 .*validates/);
    expect(schemaCheck(r.seedVolumeXml, 'storagevol')).toMatch(/^0 .*validates/);
    expect(schemaCheck(r.domainXml, 'domain')).toMatch(/^0 .*validates/);
    const overlay = await client.call('STORAGE_VOL_CREATE_XML', { pool, xml: r.overlayVolumeXml, flags: 0 });
    const overlayInfo = await client.call('STORAGE_VOL_GET_INFO', { vol: overlay });
    expect(Number(overlayInfo.capacity)).toBe(1024 ** 3);

    const seed = await client.call('STORAGE_VOL_CREATE_XML', { pool, xml: r.seedVolumeXml, flags: 0 });
    await client.uploadVolume(seed, Readable.from([r.seedIso]), { length: BigInt(r.seedIso.length) });
    const chunks: Buffer[] = [];
    await client.downloadVolume(seed, new Writable({ write: (c: Buffer, _e, cb) => (chunks.push(c), cb()) }));
    const back = Buffer.concat(chunks);
    expect(back.equals(r.seedIso)).toBe(true);
    expect(readSeedIso(back).files.get('user-data')?.toString()).toBe(r.userData);

    const dom = await client.call('DOMAIN_DEFINE_XML_FLAGS', { xml: r.domainXml, flags: DomainDefine.VALIDATE });
    expect(dom.name).toBe(r.id);
    const xml = await client.call('DOMAIN_GET_XML_DESC', { dom, flags: 0 });
    // Whatever spelling libvirt stores, the parser reads it back as written.
    expect(parseInstanceMetadata(xml)).toEqual(r.metadata);
    expect(xml).toContain(`volume='${r.volumes.seed}'`);
    expect(xml).toMatch(/<target dev='sda' bus='scsi'\/>/);

    // The element alone, through GET_METADATA and SET_METADATA. Some releases (9.0) strip
    // the namespace from GET_METADATA's reply, others keep it: the parser is told it is ours.
    const element = await getMetadataElement(client, dom, METADATA_NS);
    expect(element && parseInstanceMetadata(element, { element: true })).toEqual(r.metadata);
    const updated = { ...r.metadata, port: 8888 };
    await setMetadataElement(client, dom, {
      uri: METADATA_NS,
      key: METADATA_KEY,
      xml: buildInstanceMetadataXml(updated),
    });
    expect(parseInstanceMetadata(await client.call('DOMAIN_GET_XML_DESC', { dom, flags: 0 }))).toEqual(updated);
    const again = await getMetadataElement(client, dom, METADATA_NS);
    expect(again && parseInstanceMetadata(again, { element: true })).toEqual(updated);
    expect(MetadataType.ELEMENT).toBe(2);
  });

  it('a domain on a host bridge validates too, with the domain type the provider picks for this host', async () => {
    // domainType auto, decided as a launch decides it: kvm where libvirt offers it, else qemu.
    const domainType = await resolveDomainType('auto', new ClientApi(client));
    const spec = resolveSpec({ name: 'egtest-validate-br' }, config, {
      ...config.hosts[0]!,
      network: undefined,
      bridge: 'egtest-br0',
    });
    const r = renderProxy(spec, { domainType, basePath: '/var/tmp/none.qcow2', createdAt: new Date() });
    created.domains.push(r.id);
    await removeDomain(client, r.id);
    const dom = await client.call('DOMAIN_DEFINE_XML_FLAGS', { xml: r.domainXml, flags: DomainDefine.VALIDATE });
    const xml = await client.call('DOMAIN_GET_XML_DESC', { dom, flags: 0 });
    expect(xml).toContain(`<domain type='${domainType}'`);
    expect(xml).toContain("<source bridge='egtest-br0'/>");
    const cpuMode = defaultCpuMode(domainType);
    if (cpuMode === 'default') expect(xml).not.toContain('host-model');
    else expect(xml).toContain(`<cpu mode='${cpuMode}'`);
  });

  it('kvmOffered agrees with libvirt: a kvm domain defines exactly where KVM is offered', async () => {
    // Both answers are checked against the daemon itself; the provider's choice for either
    // answer is covered over the in-memory host (test/unit/provider/provider-launch.test.ts).
    const offered = await new ClientApi(client).kvmOffered();
    const spec = resolveSpec({ name: 'egtest-validate-kvm' }, config, config.hosts[0]!);
    const r = renderProxy(spec, { domainType: 'kvm', basePath: '/var/tmp/none.qcow2', createdAt: new Date() });
    created.domains.push(r.id);
    await removeDomain(client, r.id);
    const define = client.call('DOMAIN_DEFINE_XML_FLAGS', { xml: r.domainXml, flags: DomainDefine.VALIDATE });
    if (offered) await expect(define).resolves.toMatchObject({ name: r.id });
    else await expect(define).rejects.toThrow(/does not support virt type 'kvm'/);
  });

  it('libvirt refuses a malformed domain with a clear error (and the validation is real)', async () => {
    const spec = resolveSpec({ name: 'egtest-validate-bad' }, config, config.hosts[0]!);
    const r = renderProxy(spec, { domainType: 'qemu', basePath: '/var/tmp/none.qcow2', createdAt: new Date() });
    const broken = r.domainXml.replace('<vcpu placement="static">1</vcpu>', '<vcpu placement="static">many</vcpu>');
    await expect(
      client.call('DOMAIN_DEFINE_XML_FLAGS', { xml: broken, flags: DomainDefine.VALIDATE }),
    ).rejects.toMatchObject({ name: 'LibvirtError' });
  });
});
