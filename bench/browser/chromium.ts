/**
 * Debian's Chromium through playwright-core, kept off the network (only loopback is allowed
 * here): for the browser lane (test/browser/) and the UI benchmarks (bench/ui.ts).
 */
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/** Flags that stop Chromium's own background traffic (updates, sync, safe browsing, QUIC). */
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** The screenshot size: small enough to commit, wide enough for the tables. */
export const VIEWPORT = { width: 1280, height: 800 };

/** Starts Chromium; playwright gives every launch a fresh, throwaway profile (user-data-dir). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}
