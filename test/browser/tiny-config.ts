/**
 * The config of the browser tests that launch proxies needing no guest: the test
 * environment's local host with the `tiny` image (an empty qcow2 made for the test) as the
 * default.
 */
import { tinyImage } from '../support/provider.js';
import type { TestEnv } from '../support/env.js';
import { testConfig } from './app-page.js';

/**
 * openApp's `config` (app-page.ts) for the tiny image in the new home; `seen` is told the
 * image's sha256 (the base volume's name on the host derives from it).
 */
export function tinyConfig(env: TestEnv, seen: (sha256: string) => void): (home: string) => string {
  return (home) => {
    const image = tinyImage(home);
    seen(image.sha256);
    return testConfig(env, {
      images: [`tiny: { url: "file://${image.path}", sha256: ${image.sha256} }`],
      defaults: '{ machineType: tiny, image: tiny }',
    });
  };
}
