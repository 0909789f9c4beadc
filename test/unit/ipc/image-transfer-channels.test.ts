/**
 * hosts:imageTransfer and hosts:setImageTransfer over the real backend (router, app
 * service) on in-memory hosts: the choice lands in the data directory's settings.json
 * (read by the CLI and the launch), config.yaml untouched; what the last launch recorded
 * comes back with it; bad input is refused before anything is written.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { readSettings, settingsPath } from '../../../electron/services/settings/settings-file.js';
import { imageTransferOf } from '../../../shared/app-settings.js';
import { type AppFixture, appFixture } from './app-fixture.js';

let app: AppFixture;
afterEach(async () => {
  await app?.close();
});

describe('hosts:imageTransfer', () => {
  it('is auto without a settings file; a choice is written to settings.json and read back; config.yaml is untouched', async () => {
    app = appFixture();
    const config = readFileSync(app.configFile, 'utf8');
    const file = settingsPath(app.dataDir);
    expect(await app.call('hosts:imageTransfer', { name: 'edge-b' })).toEqual({
      host: 'edge-b',
      imageTransfer: 'auto',
      file,
    });
    expect(existsSync(file)).toBe(false);
    expect(await app.call('hosts:setImageTransfer', { name: 'edge-b', imageTransfer: 'fetch' })).toEqual({
      host: 'edge-b',
      imageTransfer: 'fetch',
      file,
    });
    expect(imageTransferOf(await readSettings(app.dataDir), 'edge-b')).toBe('fetch');
    expect(imageTransferOf(await readSettings(app.dataDir), 'edge-a')).toBe('auto');
    expect(await app.call('hosts:imageTransfer', { name: 'edge-b' })).toMatchObject({ imageTransfer: 'fetch' });
    expect(readFileSync(app.configFile, 'utf8')).toBe(config);
  });

  it('answers what the last transfer did, and keeps it when the choice changes', async () => {
    app = appFixture();
    const last = {
      mode: 'upload',
      reason: 'the image URL does not answer from the host (HTTP/1.1 403 Forbidden)',
      volume: `egress-base-${'b'.repeat(64)}.qcow2`,
      at: '2026-12-03T10:00:00.000Z',
    };
    writeFileSync(
      settingsPath(app.dataDir),
      JSON.stringify({ hosts: { 'edge-b': { imageTransfer: 'auto', lastTransfer: last } } }),
    );
    expect(await app.call('hosts:imageTransfer', { name: 'edge-b' })).toMatchObject({ imageTransfer: 'auto', last });
    expect(await app.call('hosts:setImageTransfer', { name: 'edge-b', imageTransfer: 'upload' })).toMatchObject({
      imageTransfer: 'upload',
      last,
    });
  });

  it('refuses an unknown host, a choice that is not one, and a broken settings file (naming it); nothing is written', async () => {
    app = appFixture();
    await expect(app.call('hosts:setImageTransfer', { name: 'nope', imageTransfer: 'fetch' })).rejects.toMatchObject({
      name: 'UnknownEntryError',
      message: expect.stringContaining('no host named "nope"'),
    });
    expect(await app.invoke('hosts:setImageTransfer', { name: 'edge-b', imageTransfer: 'sometimes' })).toMatchObject({
      ok: false,
      error: { name: 'ValidationError', issues: [expect.objectContaining({ path: 'imageTransfer' })] },
    });
    expect(existsSync(settingsPath(app.dataDir))).toBe(false);
    writeFileSync(settingsPath(app.dataDir), '{ not json');
    await expect(app.call('hosts:setImageTransfer', { name: 'edge-b', imageTransfer: 'fetch' })).rejects.toThrow(
      `${settingsPath(app.dataDir)}: not JSON`,
    );
    expect(readFileSync(settingsPath(app.dataDir), 'utf8')).toBe('{ not json');
  });
});
