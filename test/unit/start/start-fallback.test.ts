// `npm start` where no Electron binary can be had: the real scripts/start.mjs (with --no-build:
// npm test has built already, and a build here would clear dist/ under the other tests).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { distModule, repoRoot } from '../../support/dist.js';
import { tempDir } from '../../support/temp-dir.js';

interface Started {
  child: ChildProcess;
  url: string;
  stderr: () => string;
}

const running: ChildProcess[] = [];

afterEach(() => {
  // Whatever a failed assertion left running: the script and serve share their own process group.
  for (const child of running.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
  }
});

/**
 * Runs `node scripts/start.mjs --no-build ARGS` with a throwaway home, no desktop, and
 * ELECTRON_OVERRIDE_DIST_PATH on an empty directory: no Electron binary, whatever this machine
 * has installed, and nothing to download. Resolves once the link is on stdout.
 */
function startScript(args: string[]): Promise<Started> {
  distModule('electron/start/run-start.ts');
  const root = tempDir('egress-start-');
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: join(root, 'home'),
    EGRESS_DESK_HOME: join(root, 'data'),
    ELECTRON_OVERRIDE_DIST_PATH: mkdtempSync(join(root, 'no-electron-')),
  };
  const child = spawn(process.execPath, [join(repoRoot, 'scripts', 'start.mjs'), '--no-build', ...args], {
    cwd: repoRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  running.push(child);
  let stdout = '';
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`npm start printed no link within 20 s; stderr:\n${stderr}`)),
      20_000,
    );
    child.once('exit', (code) =>
      reject(new Error(`npm start exited (${code}) before printing a link; stderr:\n${stderr}`)),
    );
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      if (!stdout.includes('\n')) return;
      clearTimeout(timer);
      resolve({ child, url: stdout.split('\n')[0]!, stderr: () => stderr });
    });
  });
}

/** SIGTERM to the script alone (as a supervisor would send it): resolves to its exit code. */
function stop(child: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  return exited;
}

describe('npm start without an Electron binary', () => {
  it('runs egress-desk serve, prints the link and one line saying why, and the page answers on 127.0.0.1', async () => {
    const start = await startScript([]);
    expect(start.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43}$/);
    const notes = start
      .stderr()
      .split('\n')
      .filter((line) => line.startsWith('Egress Desk runs in the browser'));
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(
      /^Egress Desk runs in the browser: there is no Electron binary \(ELECTRON_OVERRIDE_DIST_PATH is set, but \S+ does not exist\); for the desktop window, .*npx install-electron.*\.$/,
    );
    // No download was tried: the override leaves nothing to fetch.
    expect(start.stderr()).not.toMatch(/fetching the Electron binary/);

    const origin = new URL(start.url).origin;
    const login = await fetch(start.url, { redirect: 'manual' });
    expect(login.status).toBe(303);
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const page = await fetch(`${origin}/`, { headers: { Cookie: cookie } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root">');

    // SIGTERM to the script reaches serve: both end, cleanly, and the port is closed.
    expect(await stop(start.child)).toBe(0);
    await expect(fetch(`${origin}/`)).rejects.toThrow();
  });

  it('runs the browser on --browser and hands serve its options', async () => {
    const start = await startScript(['--browser', '--no-open']);
    expect(start.stderr()).toContain(
      'Egress Desk runs in the browser: you asked for it (--browser); npm start without it opens the desktop window.\n',
    );
    const refused = await fetch(`${new URL(start.url).origin}/`);
    expect(refused.status).toBe(401);
    expect(await stop(start.child)).toBe(0);
  });
});
