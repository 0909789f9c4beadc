/** The fleet fields of the metadata element (labels, launchedBy, expiresAt): round trips, old elements still read, strict values. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  METADATA_NS,
  MetadataError,
  buildInstanceMetadataXml,
  parseInstanceMetadata,
} from '../../../electron/services/provider/kvm/xml/metadata.js';
import { fleetMetadataOf } from '../../../electron/services/provider/kvm/fleet.js';
import { repoRoot } from '../../support/dist.js';
import { sampleMetadata } from '../../support/proxy-samples.js';

const fleet = {
  labels: { env: 'prod', 'team.name': 'web_1' },
  launchedBy: { user: 'alice', workstation: 'laptop-7.example' },
  expiresAt: '2026-12-03T18:00:00.000Z',
};

describe('metadata fleet fields', () => {
  it('round-trip: labels, who launched it and the expiry are read back as written', () => {
    const meta = sampleMetadata(fleet);
    expect(parseInstanceMetadata(buildInstanceMetadataXml(meta))).toEqual({ ...meta, extra: [] });
  });

  it('an element written before them (0.1) is still read, with none of them set', () => {
    // Captured from 0.1's builder (metadata.ts before the fleet fields, commit 56696c1^), fed
    // sampleMetadata(): today's builder cannot stand in for it.
    const old = readFileSync(join(repoRoot, 'test/fixtures/metadata/instance-0.1.xml'), 'utf8');
    const parsed = parseInstanceMetadata(old);
    expect(parsed).toEqual({ ...sampleMetadata(), extra: [] });
    expect(parsed!.labels).toBeUndefined();
    expect(parsed!.launchedBy).toBeUndefined();
    expect(parsed!.expiresAt).toBeUndefined();
    expect(buildInstanceMetadataXml(sampleMetadata())).not.toMatch(/labels|launchedBy|expiresAt/);
  });

  it('format version stays 1, and the new elements are plain children of our namespace after the 0.1 ones (what a 0.1 reader keeps as extra)', () => {
    const xml = buildInstanceMetadataXml(sampleMetadata(fleet));
    expect(xml.startsWith(`<instance xmlns="${METADATA_NS}" version="1">`)).toBe(true);
    const order = ['<specHash>', '<labels>', '<launchedBy ', '<expiresAt>'].map((t) => xml.indexOf(t));
    expect(order.every((at, i) => at > (order[i - 1] ?? -1))).toBe(true);
    expect(xml).toContain('<label key="env" value="prod"/>');
  });

  it('reads the prefixed spelling libvirt hands back after SET_METADATA', () => {
    const xml = buildInstanceMetadataXml(sampleMetadata(fleet))
      .replace(`<instance xmlns="${METADATA_NS}"`, `<egress:instance xmlns:egress="${METADATA_NS}"`)
      .replace(/<(\/?)(?!egress:)([a-zA-Z]+)/g, '<$1egress:$2');
    expect(parseInstanceMetadata(xml)).toMatchObject(fleet);
  });

  it('refuses values that are not the strict patterns, before building and when reading', () => {
    expect(() => buildInstanceMetadataXml(sampleMetadata({ labels: { Env: 'prod' } }))).toThrow();
    expect(() => buildInstanceMetadataXml(sampleMetadata({ labels: { env: 'a b' } }))).toThrow();
    expect(() => buildInstanceMetadataXml(sampleMetadata({ labels: { env: '<x>' } }))).toThrow();
    expect(() =>
      buildInstanceMetadataXml(
        sampleMetadata({ labels: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, 'v'])) }),
      ),
    ).toThrow(/at most 32/);
    expect(() => buildInstanceMetadataXml(sampleMetadata({ launchedBy: { user: 'a"b', workstation: 'x' } }))).toThrow();
    expect(() => buildInstanceMetadataXml(sampleMetadata({ expiresAt: 'tomorrow' }))).toThrow();
    const good = buildInstanceMetadataXml(sampleMetadata(fleet));
    expect(() => parseInstanceMetadata(good.replace('key="env"', 'key="__proto__"'))).toThrow(MetadataError);
    expect(() => parseInstanceMetadata(good.replace('key="team.name"', 'key="env"'))).toThrow(/appears twice/);
    expect(() => parseInstanceMetadata(good.replace('user="alice"', 'user="al ice"'))).toThrow(MetadataError);
  });
});

describe("a listed domain's element, parsed once", () => {
  it('gives what parsing gives, the same object for the same text, and reads a changed element again', () => {
    const element = buildInstanceMetadataXml(sampleMetadata(fleet));
    const listed = (metadata: string) => ({ name: 'ep-web', state: 'shutoff' as const, metadata });
    const first = fleetMetadataOf(listed(element));
    expect(first).toEqual(parseInstanceMetadata(element, { element: true }));
    expect(fleetMetadataOf(listed(element))).toBe(first);
    const relabelled = buildInstanceMetadataXml(sampleMetadata({ ...fleet, labels: { env: 'dev' } }));
    expect(fleetMetadataOf(listed(relabelled))?.labels).toEqual({ env: 'dev' });
    // An unreadable element is an error each time it is met, never remembered as "not ours".
    const broken = element.replace('version="1"', 'version="99"');
    expect(() => fleetMetadataOf(listed(broken))).toThrow();
    expect(() => fleetMetadataOf(listed(broken))).toThrow();
  });
});
