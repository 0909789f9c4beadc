/** The window's permissions (electron/shell/security.ts): the clipboard for the app's own origin, nothing else. */
import { describe, expect, it } from 'vitest';
import { APP_INDEX_URL, APP_ORIGIN } from '../../../electron/shell/renderer-protocol.js';
import { permissionAllowed, secureWebPreferences } from '../../../electron/shell/security.js';

describe('window permissions', () => {
  it('grant clipboard-sanitized-write to the app origin, as an origin or a page URL', () => {
    expect(permissionAllowed('clipboard-sanitized-write', APP_ORIGIN)).toBe(true);
    expect(permissionAllowed('clipboard-sanitized-write', APP_INDEX_URL)).toBe(true);
  });

  it('deny it to every other origin, and to none', () => {
    for (const origin of [
      'file:///',
      'null',
      'app://other',
      'app://egress-desk.evil',
      'https://egress-desk',
      'http://127.0.0.1:3000',
      'data:text/html,x',
      '',
      undefined,
    ]) {
      expect(permissionAllowed('clipboard-sanitized-write', origin), String(origin)).toBe(false);
    }
  });

  it('deny every other permission, the app origin included', () => {
    for (const permission of [
      'clipboard-read',
      'media',
      'geolocation',
      'notifications',
      'openExternal',
      'fullscreen',
      'hid',
      'usb',
      'serial',
      'unknown',
    ]) {
      expect(permissionAllowed(permission, APP_ORIGIN), permission).toBe(false);
    }
  });
});

describe('window preferences', () => {
  it('are sandboxed and isolated, with Developer Tools only when not packaged', () => {
    const unpackaged = secureWebPreferences('/p.cjs', false);
    expect(unpackaged).toMatchObject({
      preload: '/p.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      devTools: true,
    });
    expect(secureWebPreferences('/p.cjs', true).devTools).toBe(false);
  });
});
