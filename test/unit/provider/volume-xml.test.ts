import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import {
  GIB,
  buildBaseVolumeXml,
  buildOverlayVolumeXml,
  buildSeedVolumeXml,
} from '../../../electron/services/provider/kvm/xml/volume-xml.js';

const parse = (xml: string) =>
  new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', parseTagValue: false }).parse(xml).volume;

describe('volume XML', () => {
  it('overlay: qcow2, capacity in bytes, backing store with path and format', () => {
    const v = parse(
      buildOverlayVolumeXml({
        name: 'ep-x-abcdef-root.qcow2',
        capacityBytes: 10 * GIB,
        backingPath: '/var/lib/my pool/egress-base-x.qcow2',
        backingFormat: 'qcow2',
      }),
    );
    expect(v.name).toBe('ep-x-abcdef-root.qcow2');
    expect(v.capacity).toEqual({ unit: 'bytes', '#text': String(10 * 1024 ** 3) });
    expect(v.target.format).toEqual({ type: 'qcow2' });
    expect(v.backingStore).toEqual({ path: '/var/lib/my pool/egress-base-x.qcow2', format: { type: 'qcow2' } });
  });

  it('seed: raw, exactly the ISO size', () => {
    const v = parse(buildSeedVolumeXml('ep-x-abcdef-seed.iso', 374784));
    expect(v.capacity).toEqual({ unit: 'bytes', '#text': '374784' });
    expect(v.target.format).toEqual({ type: 'raw' });
  });

  it('base: the image format, capacity = file size', () => {
    const v = parse(buildBaseVolumeXml('egress-base-x.img', 123456789, 'raw'));
    expect(v.target.format).toEqual({ type: 'raw' });
    expect(v.capacity['#text']).toBe('123456789');
  });

  it('never writes a unit other than bytes', () => {
    const xml =
      buildOverlayVolumeXml({ name: 'a', capacityBytes: GIB, backingPath: '/b', backingFormat: 'raw' }) +
      buildSeedVolumeXml('s', 2048);
    expect(xml.match(/unit="[^"]+"/g)?.every((u) => u === 'unit="bytes"')).toBe(true);
  });

  it('rejects bad input', () => {
    expect(() =>
      buildOverlayVolumeXml({ name: 'a', capacityBytes: GIB, backingPath: 'relative', backingFormat: 'raw' }),
    ).toThrow();
    expect(() =>
      buildOverlayVolumeXml({ name: 'a', capacityBytes: GIB, backingPath: '/a\nb', backingFormat: 'raw' }),
    ).toThrow();
    expect(() => buildSeedVolumeXml('../x', 10)).toThrow();
    expect(() => buildSeedVolumeXml('x', 0)).toThrow();
    expect(() => buildSeedVolumeXml('x', 1.5)).toThrow();
  });
});
