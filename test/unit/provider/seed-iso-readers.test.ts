/**
 * Other readers agree with the seed ISO writer: isoinfo lists and extracts the files,
 * blkid sees an iso9660 filesystem labelled cidata, and the kernel (or fuseiso) mounts it
 * read-only with the files byte for byte. The tools come from test/env/up.sh.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildSeedIso, type SeedFile } from '../../../electron/services/provider/kvm/guest/seed-iso.js';
import { META_DATA, SECTOR, USER_DATA, asBuffer, run, tool, useWorkDir } from './seed-iso-fixture.js';

const work = useWorkDir();

describe('other readers agree', () => {
  const files: SeedFile[] = [
    { name: 'user-data', data: USER_DATA + 'y'.repeat(300 * 1024) },
    { name: 'meta-data', data: META_DATA },
    { name: 'vendor-data', data: '' },
  ];
  let iso: Buffer;
  const expected = new Map(files.map((f) => [f.name, asBuffer(f.data)]));
  beforeAll(() => {
    iso = buildSeedIso(files);
  });

  it('isoinfo reports the volume id and lists and extracts the files', () => {
    const path = work.writeIso('isoinfo.iso', iso);
    const info = tool('isoinfo', ['-d', '-i', path], 'genisoimage');
    expect(info).toContain('Volume id: cidata\n');
    expect(info).toContain('Logical block size is: 2048\n');
    expect(info).toContain(`Volume size is: ${iso.length / SECTOR}\n`);
    const listing = tool('isoinfo', ['-l', '-i', path], 'genisoimage');
    const names = [...listing.matchAll(/\]\s+(\S+)\s*$/gm)].map((m) => m[1]);
    expect(names).toEqual(['.', '..', 'meta-data;1', 'user-data;1', 'vendor-data;1']);
    for (const [name, data] of expected) {
      const r = spawnSync('isoinfo', ['-i', path, '-x', `/${name};1`], { maxBuffer: 16 * 1024 * 1024 });
      expect(r.status).toBe(0);
      expect(Buffer.from(r.stdout).equals(data), name).toBe(true);
    }
  });

  it('blkid reports an iso9660 filesystem labelled cidata', () => {
    const path = work.writeIso('blkid.iso', iso);
    expect(tool('blkid', ['-o', 'value', '-s', 'LABEL', path], 'util-linux').trim()).toBe('cidata');
    expect(tool('blkid', ['-o', 'value', '-s', 'TYPE', path], 'util-linux').trim()).toBe('iso9660');
  });

  it('mounts read-only and shows exactly the files, byte for byte', async ({ annotate }) => {
    if (process.getuid?.() !== 0) throw new Error('this test mounts the seed and must run as root (the test lanes do)');
    const path = work.writeIso('mount.iso', iso);
    const mnt = join(work.path, 'mnt');
    mkdirSync(mnt, { recursive: true });
    const how = mountIso(path, mnt);
    await annotate(
      how === 'kernel'
        ? 'mounted with the kernel isofs (loop, ro)'
        : 'this kernel has no isofs: mounted with fuseiso (FUSE)',
    );
    try {
      expect(readdirSync(mnt).sort(), how).toEqual(['meta-data', 'user-data', 'vendor-data']);
      for (const [name, data] of expected)
        expect(readFileSync(join(mnt, name)).equals(data), `${how}: ${name}`).toBe(true);
    } finally {
      const u = how === 'kernel' ? run('umount', [mnt]) : run('fusermount', ['-u', mnt]);
      if (u.status !== 0) console.error(`unmounting ${mnt} failed: ${u.stderr}`);
    }
  });
});

/**
 * Mounts with the kernel's isofs (loop, read-only) when the kernel has it; kernels built
 * without isofs (some microVM kernels, with no modules to load) get fuseiso, a FUSE
 * ISO9660 driver. Neither available fails the test, saying what is missing.
 */
function mountIso(path: string, mnt: string): 'kernel' | 'fuseiso' {
  const kernel = run('mount', ['-t', 'iso9660', '-o', 'loop,ro', path, mnt]);
  const why = kernel.stderr.replace(/\s+/g, ' ').trim();
  if (kernel.status === 0) return 'kernel';
  const noIsofs = /unknown filesystem type/i.test(kernel.stderr);
  if (!noIsofs) throw new Error(`mount -o loop,ro failed: ${why || kernel.error?.message}`);
  const fuse = run('fuseiso', ['-p', path, mnt]);
  if (fuse.status === 0) return 'fuseiso';
  throw new Error(
    `cannot mount the seed: this kernel has no iso9660 filesystem (${why}) and fuseiso ` +
      `${fuse.error ? 'is not installed (apt-get install -y --no-install-recommends fuseiso)' : `failed: ${fuse.stderr.trim()}`}`,
  );
}
