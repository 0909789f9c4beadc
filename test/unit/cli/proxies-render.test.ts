import { mkdirSync, readFileSync, readdirSync, statSync } from 'node:fs';

import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { readSeedIso } from '../../support/iso9660-reader.js';
import { parseInstanceMetadata } from '../../../electron/services/provider/kvm/xml/metadata.js';
import { cliRunner } from '../../support/cli.js';
import { tempDir } from '../../support/temp-dir.js';

const canonical = new URL('../../fixtures/config/canonical.yaml', import.meta.url).pathname;
let work: string;
const cli = cliRunner(() => ({ home: work, data: join(work, 'home'), config: canonical }));

beforeEach(() => {
  work = tempDir('egress-render-');
  mkdirSync(join(work, 'w'));
});

describe('egress-desk proxies render', () => {
  it('writes the seven preview files, 0600, and touches no host', async () => {
    const r = await cli(
      'proxies',
      'render',
      'web-1',
      '--machine-type',
      'medium',
      '--image',
      'debian-12',
      '--host',
      'edge-a',
      '--out',
      'preview',
      '--allow',
      '192.168.150.0/24',
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = join(work, 'preview');
    expect(readdirSync(out).sort()).toEqual([
      'domain.xml',
      'meta-data',
      'overlay-volume.xml',
      'seed-volume.xml',
      'seed.iso',
      'user-data',
      'vendor-data',
    ]);
    for (const f of readdirSync(out)) expect(statSync(join(out, f)).mode & 0o777).toBe(0o600);
    const meta = parseInstanceMetadata(readFileSync(join(out, 'domain.xml'), 'utf8'));
    expect(meta).toMatchObject({ name: 'web-1', host: 'edge-a', machineType: 'medium' });
    const iso = readSeedIso(readFileSync(join(out, 'seed.iso')));
    expect(iso.files.get('user-data')!.toString()).toBe(readFileSync(join(out, 'user-data'), 'utf8'));
    expect(readFileSync(join(out, 'user-data'), 'utf8')).toContain('Allow 192.168.150.0/24');
    expect(readFileSync(join(out, 'domain.xml'), 'utf8')).toContain('<source bridge="br0"/>');
  });

  it.each([
    [['Web_1', '--out', 'x'], /name: must be a lowercase DNS label/],
    [['web-1', '--out', 'x', '--machine-type', 'huge'], /no machine type named "huge"/],
    [['web-1', '--out', 'x', '--host', 'nowhere'], /no host named "nowhere" \(known: local, edge-a\)/],
    [['web-1', '--out', 'x', '--allow', '0.0.0.0/0\nAllow'], /must be an IP address or CIDR block/],
    [['web-1', '--out', 'x', '--port', '70000'], /port/],
  ])('refuses %j with a clear message and writes nothing', async (args, message) => {
    const r = await cli('proxies', 'render', ...args);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(readdirSync(work).sort()).toEqual(['w']);
  });

  it('requires --out', async () => {
    const r = await cli('proxies', 'render', 'web-1');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--out/);
  });
});
