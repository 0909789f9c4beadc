import { renameSync, writeFileSync } from 'node:fs';

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigWatch } from '../../../electron/services/config/config-watch.js';
import { tempDir } from '../../support/temp-dir.js';

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('ConfigWatch', () => {
  it('calls once per burst of changes to the file, also when it is replaced by a rename; other files are ignored', async () => {
    const dir = tempDir('egress-watch-');
    const file = join(dir, 'config.yaml');
    writeFileSync(file, 'a: 1\n');
    let calls = 0;
    const watch = new ConfigWatch({ file, onChange: () => calls++, quietMs: 100 });
    writeFileSync(join(dir, 'other.txt'), 'x');
    await pause(300);
    expect(calls).toBe(0);
    for (let i = 0; i < 5; i++) writeFileSync(file, `a: ${i}\n`);
    await pause(400);
    expect(calls).toBe(1);
    // An editor's (and our own atomic writer's) save: a new file renamed over the old one.
    writeFileSync(join(dir, '.config.yaml.tmp'), 'a: 9\n');
    renameSync(join(dir, '.config.yaml.tmp'), file);
    await pause(400);
    expect(calls).toBe(2);
    watch.close();
    writeFileSync(file, 'a: 10\n');
    await pause(300);
    expect(calls).toBe(2);
  });

  it('a directory that does not exist yet is not an error: nothing is called, and close still works', async () => {
    const missing = join(tempDir('egress-watch-'), 'no-such-dir');
    let calls = 0;
    let watch: ConfigWatch | undefined;
    expect(
      () => (watch = new ConfigWatch({ file: join(missing, 'config.yaml'), onChange: () => calls++, quietMs: 50 })),
    ).not.toThrow();
    await pause(200);
    expect(calls).toBe(0);
    expect(() => watch!.close()).not.toThrow();
    expect(() => watch!.close()).not.toThrow();
  });
});
