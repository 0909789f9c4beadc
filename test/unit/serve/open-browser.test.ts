import { describe, expect, it } from 'vitest';
import { browserOpener } from '../../../electron/serve/open-browser.js';

const url = 'http://127.0.0.1:1/?token=t';

describe('serve: opening the browser', () => {
  it('opens nothing on a Linux machine without a desktop (the token would be spent there)', () => {
    expect(browserOpener(url, {}, 'linux')).toBeUndefined();
  });

  it('uses xdg-open on a Linux desktop, open on macOS, start on Windows', () => {
    expect(browserOpener(url, { DISPLAY: ':0' }, 'linux')).toEqual({ command: 'xdg-open', args: [url] });
    expect(browserOpener(url, { WAYLAND_DISPLAY: 'wayland-0' }, 'linux')?.command).toBe('xdg-open');
    expect(browserOpener(url, {}, 'darwin')).toEqual({ command: 'open', args: [url] });
    expect(browserOpener(url, {}, 'win32')).toEqual({ command: 'cmd', args: ['/c', 'start', '""', url] });
  });
});
