/** One settings.json, one schema: the image-transfer setting and the health URLs live side by side. */
import { writeFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';
import { imageTransferOf } from '../../../shared/app-settings.js';
import {
  readSettings,
  readSettingsOrDefaults,
  settingsPath,
  updateSettings,
} from '../../../electron/services/settings/settings-file.js';
import { tempDir } from '../../support/temp-dir.js';

describe('settings.json', () => {
  it('keeps the health URLs when a host setting is changed, and the other way round', async () => {
    const dir = tempDir('egress-settings-');
    writeFileSync(settingsPath(dir), JSON.stringify({ health: { echoUrl: 'http://127.0.0.1:9/ip' } }));
    await updateSettings(dir, (s) => ({ ...s, hosts: { 'edge-a': { imageTransfer: 'fetch' } } }));
    const both = await readSettings(dir);
    expect(both.health.echoUrl).toBe('http://127.0.0.1:9/ip');
    expect(imageTransferOf(both, 'edge-a')).toBe('fetch');
    expect((await readSettingsOrDefaults(settingsPath(dir))).health).toEqual({ echoUrl: 'http://127.0.0.1:9/ip' });
  });

  it('the health monitor reads a broken file as the defaults; the CLI reader names the field', async () => {
    const dir = tempDir('egress-settings-');
    writeFileSync(settingsPath(dir), JSON.stringify({ health: { echoUrl: 'ftp://nope' } }));
    expect((await readSettingsOrDefaults(settingsPath(dir))).health).toEqual({});
    await expect(readSettings(dir)).rejects.toThrow(/health\.echoUrl: must be an http:\/\/ or https:\/\/ URL/);
  });
});
