import { describe, expect, it } from 'vitest';
import type { ElectronBinary } from '../../../electron/start/electron-binary.js';
import {
  chooseFrontEnd,
  hasDesktop,
  parseStartArgs,
  type StartFacts,
} from '../../../electron/start/front-end-choice.js';

const present: ElectronBinary = { found: true, path: '/opt/electron/electron' };
const notFetched: ElectronBinary = {
  found: false,
  why: 'the electron package has not downloaded it yet',
  downloadable: true,
};
const overrideMissing: ElectronBinary = {
  found: false,
  why: 'ELECTRON_OVERRIDE_DIST_PATH is set, but /x/electron does not exist',
  downloadable: false,
};
const desktop = { DISPLAY: ':0' };

function facts(over: Partial<StartFacts> & { argv?: string[] } = {}): StartFacts {
  const { argv = [], ...rest } = over;
  return { options: parseStartArgs(argv), binary: present, env: desktop, platform: 'linux', ...rest };
}

/** The note of a browser choice, which must be one line. */
function note(choice: ReturnType<typeof chooseFrontEnd>): string {
  if (choice.kind !== 'browser') throw new Error(`expected the browser, got ${choice.kind}`);
  expect(choice.note).not.toContain('\n');
  return choice.note;
}

describe('npm start: its arguments', () => {
  it('takes --browser, --no-build and --help, and keeps everything else, in order, for serve', () => {
    expect(parseStartArgs([])).toEqual({ browser: false, build: true, help: false, serveArgs: [] });
    expect(parseStartArgs(['--port', '8080', '--browser', '--no-build', '--no-open'])).toEqual({
      browser: true,
      build: false,
      help: false,
      serveArgs: ['--port', '8080', '--no-open'],
    });
    expect(parseStartArgs(['-h']).help).toBe(true);
  });
});

describe('npm start: which front end', () => {
  it('opens the window where the binary is present and there is a desktop', () => {
    expect(chooseFrontEnd(facts())).toEqual({ kind: 'window', electron: present.path });
    expect(chooseFrontEnd(facts({ env: { WAYLAND_DISPLAY: 'wayland-0' } })).kind).toBe('window');
    // macOS and Windows have a desktop without DISPLAY.
    expect(chooseFrontEnd(facts({ env: {}, platform: 'darwin' })).kind).toBe('window');
    expect(chooseFrontEnd(facts({ env: {}, platform: 'win32' })).kind).toBe('window');
  });

  it('runs the browser on --browser even where the window could open, and passes serve options on', () => {
    const choice = chooseFrontEnd(facts({ argv: ['--browser', '--port', '8080'] }));
    expect(choice).toMatchObject({ kind: 'browser', serveArgs: ['--port', '8080'] });
    expect(note(choice)).toMatch(
      /^Egress Desk runs in the browser: you asked for it \(--browser\); npm start without it opens the desktop window\.$/,
    );
  });

  it('takes serve options as a request for the browser (the window takes none)', () => {
    const choice = chooseFrontEnd(facts({ argv: ['--port', '8080'] }));
    expect(choice).toMatchObject({ kind: 'browser', serveArgs: ['--port', '8080'] });
    expect(note(choice)).toBe(
      'Egress Desk runs in the browser: you passed options of egress-desk serve (--port 8080); npm start without them opens the desktop window.',
    );
  });

  it('fetches a missing binary once where a window could be shown, then falls back with the download error', () => {
    expect(chooseFrontEnd(facts({ binary: notFetched }))).toEqual({ kind: 'download' });
    const failed = chooseFrontEnd(facts({ binary: notFetched, download: { error: 'TypeError: fetch failed' } }));
    expect(failed).toMatchObject({ kind: 'browser', serveArgs: [] });
    expect(note(failed)).toMatch(
      /^Egress Desk runs in the browser: there is no Electron binary \(its download failed: TypeError: fetch failed\); for the desktop window, /,
    );
    // A download that claimed success but left no binary is not tried again.
    const noBinary = chooseFrontEnd(facts({ binary: notFetched, download: {} }));
    expect(note(noBinary)).toContain('(the electron package has not downloaded it yet)');
  });

  it('says how to get the window when the binary cannot be had', () => {
    const text = note(chooseFrontEnd(facts({ binary: overrideMissing })));
    expect(text).toContain(
      'there is no Electron binary (ELECTRON_OVERRIDE_DIST_PATH is set, but /x/electron does not exist)',
    );
    expect(text).toMatch(/npx install-electron/);
    expect(text).toMatch(/ELECTRON_MIRROR=/);
    expect(text).toMatch(/ELECTRON_OVERRIDE_DIST_PATH at an unpacked Electron\.$/);
  });

  it('downloads nothing without a desktop, and runs the browser there even with a binary', () => {
    const noBinary = chooseFrontEnd(facts({ binary: notFetched, env: {} }));
    expect(note(noBinary)).toContain('there is no Electron binary (the electron package has not downloaded it yet)');
    const noDesktop = chooseFrontEnd(facts({ env: {} }));
    expect(note(noDesktop)).toMatch(
      /there is no desktop here \(neither DISPLAY nor WAYLAND_DISPLAY is set\); run npm start in a desktop session/,
    );
  });

  it('knows a desktop by DISPLAY or WAYLAND_DISPLAY (an empty one is none), or by the platform', () => {
    expect(hasDesktop({}, 'linux')).toBe(false);
    expect(hasDesktop({ DISPLAY: '' }, 'linux')).toBe(false);
    expect(hasDesktop({ DISPLAY: ':1' }, 'freebsd')).toBe(true);
    expect(hasDesktop({}, 'darwin')).toBe(true);
  });
});
