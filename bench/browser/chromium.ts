/**
 * Debian's Chromium through playwright-core, kept off the network (only loopback is allowed
 * here): for the browser lane (test/browser/) and the UI benchmarks (bench/ui.ts).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/** Flags that stop Chromium's own background traffic (updates, sync, safe browsing, QUIC). */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The screenshot size: small enough to commit, wide enough for the tables. */
export const VIEWPORT = { width: 1280, height: 800 };

/**
 * Starts Chromium; playwright gives every launch a fresh, throwaway profile (user-data-dir).
 * With `netns` (root only), Chromium runs inside that network namespace, so that its
 * 127.0.0.1 is the namespace's (where a serve started with the same `netns` listens):
 * through a two-line wrapper as the executable, since playwright talks to Chromium over
 * inherited pipes, which `ip netns exec` keeps.
 */
export function launchChromium(netns?: string): Promise<Browser> {
  let executablePath = CHROMIUM;
  if (netns) {
    if (!/^[A-Za-z0-9_.-]+$/.test(netns)) throw new Error(`not a network namespace name: ${JSON.stringify(netns)}`);
    executablePath = join(mkdtempSync(join(tmpdir(), 'egress-chromium-')), 'chromium-in-netns');
    writeFileSync(executablePath, `#!/bin/sh\nexec ip netns exec ${netns} ${CHROMIUM} "$@"\n`, { mode: 0o700 });
  }
  return chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS });
}
