/**
 * Screenshots of every run go to test-results/screenshots/. The README's copies in
 * docs/screenshots/ are refreshed only on request (`npm run screenshots`), so that a test
 * run never leaves the working tree changed.
 */
import { copyFileSync } from 'node:fs';

export function publishScreenshot(source: string, committed: string): void {
  if (process.env.EGRESS_UPDATE_SCREENSHOTS === '1') copyFileSync(source, committed);
}
