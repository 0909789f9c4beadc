/** `images bake`'s bad input: a clear message naming what is wrong, exit 2, nothing contacted (the bake itself is the guest lane's test/guest/bake.test.ts). */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { cliRunner } from '../../support/cli.js';
import { tempDir } from '../../support/temp-dir.js';

let home: string;
let work: string;
const cli = cliRunner(() => ({ home: work, data: home }));

function writeConfig(hosts: string[]): void {
  writeFileSync(
    join(home, 'config.yaml'),
    stringify({
      type: 'kvm',
      kvm: {
        // Unreachable addresses: a bake must fail on the input before any connection.
        hosts: hosts.map((name) => ({ name, address: '127.0.0.1', sshPort: 1 })),
        machineTypes: { small: { vcpus: 1, memoryMiB: 512 } },
        images: { guest: { url: 'file:///nonexistent.qcow2', sha256: 'a'.repeat(64) } },
      },
    }),
  );
}

beforeEach(() => {
  const root = tempDir('egress-bake-cli-');
  home = join(root, 'home');
  work = join(root, 'work');
  mkdirSync(home);
  mkdirSync(work);
});

describe('egress-desk images bake: bad input', () => {
  it('names an unknown image and the known ones', async () => {
    writeConfig(['one']);
    const r = await cli('images', 'bake', 'nope');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no image named "nope" (known: guest)');
  });

  it('names an unknown host and the known ones', async () => {
    writeConfig(['one', 'two']);
    const r = await cli('images', 'bake', 'guest', '--host', 'three');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no host named "three" (known: one, two)');
  });

  it('asks for --host when the config has several hosts', async () => {
    writeConfig(['one', 'two']);
    const r = await cli('images', 'bake', 'guest');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('the config has 2 hosts (one, two): say which with --host');
  });
});
