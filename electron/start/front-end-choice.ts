/**
 * What `npm start` opens: the desktop window (Electron) or the same app in the browser
 * (`egress-desk serve`), and the one line that says why when it is the browser. Pure: the
 * facts (arguments, the binary, the environment) come in, a decision goes out.
 */
import type { ElectronBinary } from './electron-binary.js';

/** `npm start -- …` as understood by the start script. */
export interface StartOptions {
  /** `--browser`: the browser on purpose, even where Electron exists. */
  browser: boolean;
  /** False with `--no-build`: run what the last build left in dist/. */
  build: boolean;
  /** `--help` / `-h`. */
  help: boolean;
  /** Everything else, in order: options of `egress-desk serve` (`--port N`, `--no-open`, `--config FILE`, `--verbose`). */
  serveArgs: string[];
}

/** `npm start -- --help`. */
export const START_USAGE = [
  'usage: npm start [-- [--browser] [--no-build] [serve options]]',
  '  opens the desktop window (Electron); where Electron cannot be had, the same app in your browser',
  '  --browser    the browser on purpose (egress-desk serve), even where Electron exists',
  '  --no-build   skip the build and run what dist/ holds',
  '  other options go to egress-desk serve and so choose the browser: --port N, --no-open, --config FILE, --verbose',
].join('\n');

/** Reads `npm start`'s own flags; any other argument is kept for serve (which validates it). */
export function parseStartArgs(argv: readonly string[]): StartOptions {
  const options: StartOptions = { browser: false, build: true, help: false, serveArgs: [] };
  for (const arg of argv) {
    if (arg === '--browser') options.browser = true;
    else if (arg === '--no-build') options.build = false;
    else if (arg === '--help' || arg === '-h') options.help = true;
    else options.serveArgs.push(arg);
  }
  return options;
}

/**
 * What to do: open the window, fetch Electron's binary first (then decide again with the
 * outcome), or run the browser front end. `note` is the one line (no newline) that says why
 * it is the browser and how to get the window.
 */
export type FrontEnd =
  { kind: 'window'; electron: string } | { kind: 'download' } | { kind: 'browser'; serveArgs: string[]; note: string };

export interface StartFacts {
  options: StartOptions;
  binary: ElectronBinary;
  env: Readonly<Record<string, string | undefined>>;
  platform: NodeJS.Platform;
  /** Set once a download was tried: `error` is its one-line failure (absent when it said it succeeded). */
  download?: { error?: string | undefined };
}

const GET_THE_BINARY =
  'for the desktop window, fetch it where github.com is reachable (npx install-electron), ' +
  'or from a mirror (ELECTRON_MIRROR=<mirror URL> npx install-electron), ' +
  'or point ELECTRON_OVERRIDE_DIST_PATH at an unpacked Electron';

/** Whether a window can be shown: macOS and Windows always have a desktop; elsewhere it takes an X or Wayland display. */
export function hasDesktop(env: Readonly<Record<string, string | undefined>>, platform: NodeJS.Platform): boolean {
  return platform === 'darwin' || platform === 'win32' || Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
}

/**
 * Picks the front end: the browser when asked for, when there is no Electron binary (after
 * one try to fetch it, where a window could be shown), or when there is no desktop.
 */
export function chooseFrontEnd({ options, binary, env, platform, download }: StartFacts): FrontEnd {
  const browser = (why: string, how: string): FrontEnd => ({
    kind: 'browser',
    serveArgs: options.serveArgs,
    note: `Egress Desk runs in the browser: ${why}; ${how}.`,
  });
  if (options.browser) return browser('you asked for it (--browser)', 'npm start without it opens the desktop window');
  // The window takes no options: whoever passes serve's options means the browser.
  if (options.serveArgs.length > 0) {
    return browser(
      `you passed options of egress-desk serve (${options.serveArgs.join(' ')})`,
      'npm start without them opens the desktop window',
    );
  }
  const desktop = hasDesktop(env, platform);
  if (!binary.found) {
    // Without a desktop the binary would be of no use: no 100 MB download for nothing.
    if (desktop && binary.downloadable && download === undefined) return { kind: 'download' };
    const why = download?.error === undefined ? binary.why : `its download failed: ${download.error}`;
    return browser(`there is no Electron binary (${why})`, GET_THE_BINARY);
  }
  if (!desktop)
    return browser(
      'there is no desktop here (neither DISPLAY nor WAYLAND_DISPLAY is set)',
      'run npm start in a desktop session for the window',
    );
  return { kind: 'window', electron: binary.path };
}

/** The line for a window that could not even be started (the binary exists but does not run). */
export function windowFailedNote(error: string): string {
  return `Egress Desk runs in the browser: Electron could not be started (${error}); ${GET_THE_BINARY}.`;
}
