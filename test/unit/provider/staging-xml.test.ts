/**
 * The fetch-on-host XML: what makes libvirt's copy byte for byte (raw on both sides), the
 * base preallocated whole (allocation = capacity), and the staged file the SSH user's own.
 * Schema checks against libvirt's RNG (virt-xml-validate) run where it is installed.
 */
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import {
  buildFetchedBaseXml,
  buildStagedVolumeXml,
  buildStagingPoolXml,
} from '../../../electron/services/provider/kvm/xml/staging-xml.js';
import { skipBecause } from '../../support/skip.js';
import { tempDir } from '../../support/temp-dir.js';

const parse = (xml: string) =>
  new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', parseTagValue: false }).parse(xml);

describe('staging XML', () => {
  it('the staging pool: a dir pool over the path, as given', () => {
    expect(parse(buildStagingPoolXml('egress-stage-abc-1234', '/var/tmp/egress-stage.AbCd1234')).pool).toEqual({
      type: 'dir',
      name: 'egress-stage-abc-1234',
      target: { path: '/var/tmp/egress-stage.AbCd1234' },
    });
  });

  it('the staged file: raw, empty, owned by the SSH user, 0600', () => {
    const v = parse(buildStagedVolumeXml('image', 1000, 1001)).volume;
    expect(v.capacity).toEqual({ unit: 'bytes', '#text': '0' });
    expect(v.target).toEqual({ format: { type: 'raw' }, permissions: { owner: '1000', group: '1001', mode: '0600' } });
  });

  it('the base: raw, allocation = capacity = the file size', () => {
    const v = parse(buildFetchedBaseXml('egress-base-x.qcow2', 123456789)).volume;
    expect(v.capacity).toEqual({ unit: 'bytes', '#text': '123456789' });
    expect(v.allocation).toEqual({ unit: 'bytes', '#text': '123456789' });
    expect(v.target.format).toEqual({ type: 'raw' });
  });

  it('rejects what libvirt would misread', () => {
    expect(() => buildStagingPoolXml('a b', '/x')).toThrow();
    expect(() => buildStagingPoolXml('p', 'relative/dir')).toThrow();
    expect(() => buildStagingPoolXml('p', '/x\ny')).toThrow();
    expect(() => buildStagedVolumeXml('image', -1, 0)).toThrow();
    expect(() => buildFetchedBaseXml('b', 0)).toThrow();
  });

  it("libvirt's own schemas accept all three", (ctx) => {
    if (spawnSync('virt-xml-validate', ['--help']).error) skipBecause(ctx, 'virt-xml-validate is not installed here');
    const dir = tempDir('egress-staging-xml-');
    try {
      for (const [schema, xml] of [
        ['storagepool', buildStagingPoolXml('egress-stage-abc-1234', '/var/tmp/egress-stage.AbCd1234')],
        ['storagevol', buildStagedVolumeXml('image', 1000, 1001)],
        ['storagevol', buildFetchedBaseXml('egress-base-x.qcow2', 4096)],
      ] as const) {
        const file = join(dir, `${schema}.xml`);
        writeFileSync(file, xml);
        const r = spawnSync('virt-xml-validate', [file, schema], { encoding: 'utf8' });
        expect(`${r.status} ${r.stdout}${r.stderr}`.trim(), xml).toMatch(/^0 /);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
