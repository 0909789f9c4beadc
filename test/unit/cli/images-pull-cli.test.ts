/**
 * `egress-desk images list`, `pull` and `prune` against a real HTTP server (the setup:
 * images-cli-fixture.ts): listing, downloading and resuming, errors and Ctrl-C, pruning.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { cliBin } from '../../support/dist.js';
import { sha256 } from '../images/server.js';
import { debian, expectNoStack, other, ubuntu, useImagesCli } from './images-cli-fixture.js';

const fx = useImagesCli();
const { cli, env, configFile, cacheDir, writeConfig } = fx;

describe('egress-desk images list / pull', () => {
  it('lists config images as absent, pulls one, then lists it as cached', async () => {
    const before = await cli('images', 'list');
    expect(before.code).toBe(0);
    expect(before.stdout.split('\n')[0]).toMatch(/^NAME +STATE +SIZE +SHA256 +URL$/);
    expect(before.stdout).toMatch(new RegExp(`debian-12 +absent +- +${sha256(debian).slice(0, 12)} +http://`));

    const pull = await cli('images', 'pull', 'debian-12');
    expect(pull.code).toBe(0);
    expect(pull.stdout).toMatch(
      /^debian-12: downloaded and verified: .*\.qcow2 \(92\.8 KiB, sha256 [0-9a-f]{12}…\)\n$/,
    );
    expect(readFileSync(join(cacheDir(), `${sha256(debian)}.qcow2`)).equals(debian)).toBe(true);

    const again = await cli('images', 'pull', 'debian-12', '--json');
    expect(JSON.parse(again.stdout)).toMatchObject({
      name: 'debian-12',
      sha256: sha256(debian),
      size: debian.length,
      cached: true,
    });
    expect(fx.server.requestsFor('/debian/disk.qcow2')).toHaveLength(1);

    const after = await cli('images', 'list', '--json');
    const listed = JSON.parse(after.stdout) as {
      cacheDir: string;
      images: Array<Record<string, unknown>>;
      unreferenced: unknown[];
    };
    expect(listed.cacheDir).toBe(cacheDir());
    expect(listed.images).toMatchObject([
      { name: 'debian-12', state: 'cached', size: debian.length, format: 'qcow2' },
      { name: 'noble', state: 'absent', format: 'raw' },
    ]);
  });

  it('shows a partial download, and pull resumes it', async () => {
    fx.server.dropAfter = 30_000;
    const first = await cli('images', 'pull', 'noble');
    expect(first.code).toBe(1);
    expect(first.stderr).toMatch(/the partial download is kept and the next attempt resumes from there\n$/);
    expectNoStack(first.stderr);
    const list = await cli('images', 'list');
    expect(list.stdout).toMatch(/noble +partial +29\.3 KiB of 129\.9 KiB/);
    const second = await cli('images', 'pull', 'noble');
    expect(second.code).toBe(0);
    expect(fx.server.requestsFor('/ubuntu/noble.img')[1]).toMatchObject({
      status: 206,
      headers: { range: 'bytes=30000-' },
    });
  });

  it('pull: an unknown name, a digest mismatch and a missing image are one-line errors, exit 1', async () => {
    const unknown = await cli('images', 'pull', 'fedora');
    expect(unknown).toMatchObject({ code: 1, stdout: '' });
    expect(unknown.stderr).toBe('egress-desk: no image named "fedora" (known: debian-12, noble)\n');

    writeConfig({
      bad: { url: fx.server.url('/debian/disk.qcow2'), sha256: sha256('not it') },
      gone: { url: fx.server.url('/gone.qcow2'), sha256: sha256('x') },
    });
    const bad = await cli('images', 'pull', 'bad');
    expect(bad.code).toBe(1);
    // Progress lines first (stderr is a pipe here), then the error: one line.
    const errors = bad.stderr.split('\n').filter((l) => l.startsWith('egress-desk:'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      /^egress-desk: the image from http:\S+ has sha256 [0-9a-f]{64} but [0-9a-f]{64} was expected .*deleted and is not used/,
    );
    expectNoStack(bad.stderr);
    expect(readdirSync(cacheDir()).filter((n) => !n.endsWith('.lock'))).toEqual([]);
    const gone = await cli('images', 'pull', 'gone');
    expect(gone.stderr).toMatch(/^egress-desk: the image was not found at http:\S+\/gone\.qcow2 \(HTTP 404\)\n$/);
  });

  it('Ctrl-C (SIGINT) stops a pull cleanly: the partial is kept, the lock released, and the next pull resumes', async () => {
    fx.server.stallAfter = 40_000;
    const child = spawn(process.execPath, [cliBin, 'images', 'pull', 'noble'], {
      env: { PATH: process.env.PATH ?? '', ...env() },
      cwd: fx.work,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const partial = join(cacheDir(), `${sha256(ubuntu)}.partial`);
    await expect
      .poll(() => existsSync(partial) && readFileSync(partial).length === 40_000, { timeout: 10_000 })
      .toBe(true);
    child.kill('SIGINT');
    const code = await new Promise<number | null>((r) => child.on('close', r));
    expect(code).toBe(1);
    expect(stderr).toMatch(/egress-desk: the download of \S+ was cancelled; the partial download is kept/);
    expect(existsSync(partial)).toBe(true);
    expect(existsSync(join(cacheDir(), `${sha256(ubuntu)}.lock`))).toBe(false);
    const again = await cli('images', 'pull', 'noble');
    expect(again.code).toBe(0);
    expect(fx.server.requestsFor('/ubuntu/noble.img')[1]).toMatchObject({
      status: 206,
      headers: { range: 'bytes=40000-' },
    });
  });

  it('pull on a pipe prints plain progress lines on stderr (no carriage returns)', async () => {
    const r = await cli('images', 'pull', 'noble');
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^noble: .*KiB of 129\.9 KiB/m);
    expect(r.stderr).not.toContain('\r');
  });
});

describe('egress-desk images prune', () => {
  beforeEach(async () => {
    await cli('images', 'pull', 'debian-12');
    // An image some earlier config referenced, and a partial download of it.
    writeConfig({
      'debian-12': { url: fx.server.url('/debian/disk.qcow2'), sha256: sha256(debian) },
      old: { url: fx.server.url('/other/x.qcow2'), sha256: sha256(other) },
    });
    await cli('images', 'pull', 'old');
    writeFileSync(join(cacheDir(), `${'e'.repeat(64)}.partial`), 'partial bytes');
    writeConfig({ 'debian-12': { url: fx.server.url('/debian/disk.qcow2'), sha256: sha256(debian) } });
  });

  it('--dry-run reports what no config image references, and removes nothing', async () => {
    const before = readdirSync(cacheDir()).sort();
    const r = await cli('images', 'prune', '--dry-run');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      `would remove eeeeeeeeeeee 13 B (partial download)\nwould remove ${sha256(other).slice(0, 12)} 2.4 KiB (image, last used ${new Date().toISOString().slice(0, 10)})\nwould free 2.5 KiB\n`,
    );
    expect(readdirSync(cacheDir()).sort()).toEqual(before);
  });

  it('removes unreferenced images and partials, keeps referenced ones', async () => {
    const r = await cli('images', 'prune', '--json');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as {
      dryRun: boolean;
      freed: number;
      removed: Array<{ sha256: string; kind: string }>;
    };
    expect(out.removed.map((x) => x.kind).sort()).toEqual(['image', 'partial']);
    expect(readdirSync(cacheDir())).toEqual([`${sha256(debian)}.qcow2`]);
    expect((await cli('images', 'prune')).stdout).toBe('nothing to remove\n');
  });

  it('--max-size evicts least recently used images until the cache fits; a bad size is a usage error', async () => {
    // 92.8 KiB (pulled first, so least recently used) + 2.4 KiB: over 50 KiB until the first goes.
    const r = await cli('images', 'prune', '--max-size', '50K');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(
        `^removed ${sha256(debian).slice(0, 12)} 92\\.8 KiB \\(image, last used [0-9-]+\\)\nfreed 92\\.8 KiB\n$`,
      ),
    );
    expect(existsSync(join(cacheDir(), `${sha256(other)}.qcow2`))).toBe(true);
    const bad = await cli('images', 'prune', '--max-size', 'lots');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('egress-desk: --max-size: must be a size such as 20G, 512M or 1.5T (got "lots")\n');
  });

  it('refuses to prune from an invalid config', async () => {
    writeFileSync(configFile(), 'type: kvm\nkvm: { hosts: [], machineTypes: {} }\n');
    const r = await cli('images', 'prune');
    expect(r.code).toBe(1);
    expect(readdirSync(cacheDir())).toHaveLength(3);
  });
});
