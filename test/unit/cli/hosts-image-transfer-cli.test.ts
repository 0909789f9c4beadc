/**
 * `hosts image-transfer` and the settings file behind it: defaults without a file, a choice
 * written atomically 0600 to `<dataDir>/settings.json` (never to config.yaml), an invalid
 * file refused naming the file and field.
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { readSettings, settingsPath } from '../../../electron/services/settings/settings-file.js';
import { imageTransferOf } from '../../../shared/app-settings.js';
import { cliRunner } from '../../support/cli.js';
import { tempDir } from '../../support/temp-dir.js';

let work: string;
const data = () => join(work, 'data');
const cli = cliRunner(() => ({ home: work, data: data(), config: join(work, 'config.yaml') }));

const CONFIG = `type: kvm
kvm:
  hosts:
    - { name: edge-a, address: 203.0.113.10 }
  machineTypes: { small: { vcpus: 1, memoryMiB: 512 } }
  images: { debian-12: { url: "https://images.example.org/d.qcow2", sha256: "${'0'.repeat(64)}" } }
  defaults: { machineType: small, image: debian-12 }
`;

beforeEach(() => {
  work = tempDir('egress-transfer-cli-');
  mkdirSync(data());
  writeFileSync(join(work, 'config.yaml'), CONFIG);
});

describe('egress-desk hosts image-transfer', () => {
  it('is auto without a settings file; a choice lands in settings.json (0600), config.yaml untouched', async () => {
    expect(await cli('hosts', 'image-transfer', 'edge-a')).toMatchObject({ code: 0, stdout: 'edge-a: auto\n' });
    expect(await cli('hosts', 'image-transfer', 'edge-a', 'upload')).toMatchObject({
      code: 0,
      stdout: 'edge-a: upload\n',
    });
    expect(statSync(settingsPath(data())).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(settingsPath(data()), 'utf8'))).toEqual({
      hosts: { 'edge-a': { imageTransfer: 'upload' } },
      health: {},
    });
    expect(imageTransferOf(await readSettings(data()), 'edge-a')).toBe('upload');
    expect(imageTransferOf(await readSettings(data()), 'other')).toBe('auto');
    expect(readFileSync(join(work, 'config.yaml'), 'utf8')).toBe(CONFIG);
    expect(await cli('hosts', 'image-transfer', 'edge-a')).toMatchObject({ code: 0, stdout: 'edge-a: upload\n' });
  });

  it('says how the last image reached the host and why it was not fetched, when asked (not when set)', async () => {
    const volume = `egress-base-${'c'.repeat(64)}.qcow2`;
    const lastTransfer = {
      mode: 'upload',
      reason: 'the host has neither curl nor wget',
      volume,
      at: '2026-12-03T10:00:00.000Z',
    };
    writeFileSync(
      settingsPath(data()),
      JSON.stringify({ hosts: { 'edge-a': { imageTransfer: 'auto', lastTransfer } } }),
    );
    expect(await cli('hosts', 'image-transfer', 'edge-a')).toMatchObject({
      code: 0,
      stdout: `edge-a: auto\nlast image: ${volume} uploaded from this machine (not fetched on the host: the host has neither curl nor wget), 2026-12-03T10:00:00.000Z\n`,
    });
    expect(await cli('hosts', 'image-transfer', 'edge-a', 'fetch')).toMatchObject({
      code: 0,
      stdout: 'edge-a: fetch\n',
    });
    expect(JSON.parse(readFileSync(settingsPath(data()), 'utf8')).hosts['edge-a']).toEqual({
      imageTransfer: 'fetch',
      lastTransfer,
    });
  });

  it('refuses an unknown host, an unknown choice and an invalid settings file', async () => {
    expect(await cli('hosts', 'image-transfer', 'nope', 'fetch')).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('no host named "nope"'),
    });
    expect((await cli('hosts', 'image-transfer', 'edge-a', 'sometimes')).code).toBe(2);
    writeFileSync(settingsPath(data()), JSON.stringify({ hosts: { 'edge-a': { imageTransfer: 'fetch', extra: 1 } } }));
    await expect(readSettings(data())).rejects.toThrow(
      `${settingsPath(data())}: hosts.edge-a: Unrecognized key: "extra"`,
    );
    const r = await cli('hosts', 'image-transfer', 'edge-a');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(settingsPath(data()));
  });
});
