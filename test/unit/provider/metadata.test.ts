import { describe, expect, it } from 'vitest';
import {
  type InstanceMetadataInput,
  METADATA_NS,
  MetadataError,
  buildInstanceMetadataXml,
  parseInstanceMetadata,
} from '../../../electron/services/provider/kvm/xml/metadata.js';
import { sampleMetadata } from '../../support/proxy-samples.js';

const meta: InstanceMetadataInput = sampleMetadata();

describe('instance metadata', () => {
  it('is written with a default namespace', () => {
    const xml = buildInstanceMetadataXml(meta);
    expect(xml.startsWith(`<instance xmlns="${METADATA_NS}" version="1">`)).toBe(true);
    expect(xml).not.toMatch(/password|secret/i);
  });

  it('round-trips: build -> parse gives the same fields', () => {
    expect(parseInstanceMetadata(buildInstanceMetadataXml(meta))).toEqual({ ...meta, extra: [] });
  });

  it('records an allow list of its own (prefixed too), refuses one that is not addresses, and an older reader keeps it as extra', () => {
    const withAllow = { ...meta, allow: ['192.168.150.0/24', '10.1.2.3', 'fd00::/8'] };
    const xml = buildInstanceMetadataXml(withAllow);
    expect(xml).toContain('<allow>');
    expect(parseInstanceMetadata(xml)).toEqual({ ...withAllow, extra: [] });
    const prefixed = xml
      .replace(`<instance xmlns="${METADATA_NS}"`, `<e:instance xmlns:e="${METADATA_NS}"`)
      .replace(/<(\/?)(?!e:)([a-zA-Z]+)/g, '<$1e:$2');
    expect(parseInstanceMetadata(prefixed)?.allow).toEqual(withAllow.allow);
    expect(() => parseInstanceMetadata(xml.replace('10.1.2.3', '10.1.2.3; rm -rf /'))).toThrow(
      /allow\.1: must be an IP address or CIDR prefix/,
    );
    expect(() => buildInstanceMetadataXml({ ...meta, allow: ['*'] })).toThrow();
    // Without the element (every default list, and 0.1's proxies): no allow.
    expect(parseInstanceMetadata(buildInstanceMetadataXml(meta))?.allow).toBeUndefined();
  });

  it('parses the prefixed spelling libvirt may hand back', () => {
    const xml = `<egress:instance xmlns:egress="${METADATA_NS}" version="1">
      <egress:name>web-1</egress:name><egress:owner>egress-desk</egress:owner><egress:host>edge-a</egress:host>
      <egress:machineType>small</egress:machineType><egress:image name="debian-12" sha256="${'ab'.repeat(32)}"/>
      <egress:port>3128</egress:port><egress:createdAt>2026-12-02T09:30:00.000Z</egress:createdAt>
      <egress:specHash>sha256:${'cd'.repeat(32)}</egress:specHash></egress:instance>`;
    expect(parseInstanceMetadata(xml)).toEqual({ ...meta, extra: [] });
  });

  it('finds the element inside a whole domain XML, with the prefix declared on an ancestor, any prefix', () => {
    const inner = buildInstanceMetadataXml(meta)
      .replace(`<instance xmlns="${METADATA_NS}"`, '<q:instance')
      .replace(/<(\/?)(?!q:)([a-zA-Z]+)/g, '<$1q:$2');
    const domain = `<domain type="qemu"><name>ep-web-1-abcdef</name><metadata xmlns:q="${METADATA_NS}"><other xmlns="urn:someone-else"><name>x</name></other>${inner}</metadata></domain>`;
    expect(parseInstanceMetadata(domain)).toEqual({ ...meta, extra: [] });
  });

  it('reads the element as libvirt 9.0 GET_METADATA returns it: namespace stripped, or only a stray prefix declaration', () => {
    const stripped = buildInstanceMetadataXml(meta).replace(` xmlns="${METADATA_NS}"`, '');
    expect(parseInstanceMetadata(stripped)).toBeUndefined();
    expect(parseInstanceMetadata(stripped, { element: true })).toEqual({ ...meta, extra: [] });
    const stray = buildInstanceMetadataXml(meta).replace(` xmlns="${METADATA_NS}"`, ` xmlns:egress="${METADATA_NS}"`);
    expect(parseInstanceMetadata(stray, { element: true })).toEqual({ ...meta, extra: [] });
  });

  it('ignores an instance element of another namespace, and a domain without ours', () => {
    expect(
      parseInstanceMetadata(
        '<domain><metadata><instance xmlns="urn:other"><name>x</name></instance></metadata></domain>',
      ),
    ).toBeUndefined();
    expect(parseInstanceMetadata('<domain><name>plain</name></domain>')).toBeUndefined();
  });

  it('keeps unknown elements of our namespace, and writes them back', () => {
    const withExtra = buildInstanceMetadataXml(meta).replace(
      '</instance>',
      '<tags><tag key="team">net</tag></tags><note>hello &amp; bye</note></instance>',
    );
    const parsed = parseInstanceMetadata(withExtra)!;
    expect(parsed.extra).toEqual([
      {
        name: 'tags',
        attributes: {},
        children: [{ name: 'tag', attributes: { key: 'team' }, text: 'net', children: [] }],
      },
      { name: 'note', attributes: {}, text: 'hello & bye', children: [] },
    ]);
    expect(parseInstanceMetadata(buildInstanceMetadataXml(parsed))).toEqual(parsed);
  });

  it('escapes XML metacharacters and round-trips them', () => {
    const tricky = { ...meta, host: 'a<b>&"c\'', machineType: ']]>', image: { ...meta.image, name: 'x"/><evil/>' } };
    const xml = buildInstanceMetadataXml(tricky);
    expect(xml).not.toContain('<evil/>');
    expect(parseInstanceMetadata(xml)).toEqual({ ...tricky, extra: [] });
  });

  it('rejects control characters and invalid fields before building', () => {
    expect(() => buildInstanceMetadataXml({ ...meta, host: 'a\u0001b' })).toThrow(MetadataError);
    expect(() => buildInstanceMetadataXml({ ...meta, port: 0 })).toThrow();
    expect(() => buildInstanceMetadataXml({ ...meta, owner: 'someone' as never })).toThrow();
  });

  it('reports a malformed element clearly', () => {
    const bad = buildInstanceMetadataXml(meta).replace('<port>3128</port>', '<port>lots</port>');
    expect(() => parseInstanceMetadata(bad)).toThrow(/port: /);
    expect(() => parseInstanceMetadata(buildInstanceMetadataXml(meta).replace('version="1"', 'version="7"'))).toThrow(
      MetadataError,
    );
    expect(() => parseInstanceMetadata('<!DOCTYPE x [<!ENTITY a "b">]><x/>')).toThrow(/DOCTYPE/);
  });
});
