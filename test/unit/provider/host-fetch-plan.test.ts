/**
 * Fetch-on-host's pure half: quoting, the verdicts read from the host's output, and the
 * choice between fetch and upload. The scripts themselves run here under `sh` against a
 * loopback HTTP server, with curl and with wget (each skipped, saying so, where it is missing;
 * test/env/up.sh installs both).
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  STAGING_DIR,
  downloadCommand,
  parseDownload,
  parseProbe,
  probeCommand,
  removeStagingDirCommand,
  shellQuote,
  transferAfterProbe,
  transferWithoutProbe,
} from '../../../electron/services/provider/kvm/images/host-fetch-plan.js';
import { skipBecause } from '../../support/skip.js';
import { tempDir } from '../../support/temp-dir.js';

const ok = (stdout: string) => ({ code: 0, stdout, stderr: '' });
const READY = 'tool curl\nid 1000 1000\nsize 4096\nhead 514649fb00000003\n';

describe('shellQuote', () => {
  it('makes any string one word that sh reads back unchanged', () => {
    for (const s of ["it's", 'a b', '$(rm -rf /)', '`x`', '"q"', '\\', '', "''"]) {
      expect(execFileSync('sh', ['-c', `printf '%s' ${shellQuote(s)}`], { encoding: 'utf8' })).toBe(s);
    }
  });
});

describe('parseProbe', () => {
  it('reads tool, ids, size and header', () => {
    expect(parseProbe(ok(READY))).toEqual({
      ok: true,
      tool: 'curl',
      uid: 1000,
      gid: 1000,
      size: 4096,
      header: Buffer.from('514649fb00000003', 'hex'),
    });
  });

  it.each([
    ['nodownloader\n', 'the host has neither curl nor wget'],
    ['nosha256sum\n', 'the host has no sha256sum to check the image with'],
    [
      'tool curl\nid 0 0\nunreachable curl: (7) Failed to connect to mirror port 443\n',
      'the image URL does not answer from the host (curl: (7) Failed to connect to mirror port 443)',
    ],
    [
      'tool wget\nid 0 0\nunreachable HTTP/1.1 403 Forbidden\n',
      'the image URL does not answer from the host (HTTP/1.1 403 Forbidden)',
    ],
    ['tool curl\nid 0 0\nsize unknown\nhead \n', 'the server tells the host no size for the image (no Content-Length)'],
    ['garbage\n', "the host's probe printed something unexpected (garbage)"],
  ])('says why the host cannot fetch: %j', (stdout, reason) => {
    expect(parseProbe(ok(stdout))).toEqual({ ok: false, reason });
  });

  it('a failed probe command is a reason too, with its last error line', () => {
    expect(parseProbe({ code: 127, stdout: '', stderr: 'x\nsh: not found\n' })).toEqual({
      ok: false,
      reason: 'the probe failed on the host (exit 127: sh: not found)',
    });
  });
});

describe('transfer choice', () => {
  const ssh = { address: '203.0.113.7' };
  it('upload when asked, for this machine, and for URLs the host cannot download', () => {
    expect(transferWithoutProbe('upload', ssh, 'https://x/i.qcow2')).toEqual({ mode: 'upload', reason: undefined });
    expect(transferWithoutProbe('auto', { address: 'local' }, 'https://x/i.qcow2')).toEqual({
      mode: 'upload',
      reason: 'the host is this machine',
    });
    expect(transferWithoutProbe('auto', ssh, 'file:///srv/i.qcow2')).toEqual({
      mode: 'upload',
      reason: 'a file: URL names a file on this machine, not one the host can download',
    });
  });
  it('an http(s) URL on an SSH host asks the host', () => {
    expect(transferWithoutProbe('auto', ssh, 'HTTPS://x/i.qcow2')).toBeUndefined();
    expect(transferWithoutProbe('fetch', ssh, 'http://x/i.qcow2')).toBeUndefined();
    const probe = parseProbe(ok(READY));
    expect(transferAfterProbe(probe)).toEqual({ mode: 'fetch', probe });
    expect(transferAfterProbe({ ok: false, reason: 'r' })).toEqual({ mode: 'upload', reason: 'r' });
  });
});

describe('parseDownload', () => {
  const sha = 'a'.repeat(64);
  it('size on success, the digest the host computed on a mismatch, the error line on a failed download', () => {
    expect(parseDownload(ok('size 123\n'), 'http://x/i', sha)).toEqual({ ok: true, size: 123 });
    expect(parseDownload({ code: 11, stdout: `sha256 ${'b'.repeat(64)}\n`, stderr: '' }, 'http://x/i', sha)).toEqual({
      ok: false,
      message: `the image the host downloaded from http://x/i has SHA-256 ${'b'.repeat(64)}, not the configured ${sha}: it was deleted`,
    });
    expect(parseDownload({ code: 10, stdout: '', stderr: 'curl: (56) Recv failure\n' }, 'http://x/i', sha)).toEqual({
      ok: false,
      message: 'the host could not download http://x/i: curl: (56) Recv failure',
    });
  });
});

describe('staging directory', () => {
  it('only a directory of the form mktemp made is ever removed', () => {
    expect(STAGING_DIR.test('/var/tmp/egress-stage.AbCd1234')).toBe(true);
    expect(() => removeStagingDirCommand('/var/tmp')).toThrow(/not a staging directory/);
    expect(() => removeStagingDirCommand('/var/tmp/egress-stage.AbCd1234/../..')).toThrow(/not a staging directory/);
  });
});

/**
 * A PATH on which `hidden` is not found (a folder of links to every other program of this
 * PATH): the probe takes curl when it has it, and this is how its wget branch runs here too.
 */
function pathWithout(hidden: string, into: string): string {
  const bin = join(into, `bin-without-${hidden}`);
  mkdirSync(bin, { recursive: true });
  const seen = new Set<string>([hidden]);
  for (const dir of (process.env.PATH ?? '').split(':')) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      if (seen.has(name)) continue;
      seen.add(name);
      symlinkSync(join(dir, name), join(bin, name));
    }
  }
  return bin;
}

describe('the scripts, run by sh against a loopback server', () => {
  let server: Server;
  let base: string;
  let dir: string;
  const body = Buffer.concat([Buffer.from('514649fb00000003', 'hex'), Buffer.alloc(5000, 7)]);
  const TOOLS = ['curl', 'wget'] as const;
  const installed = (t: string) => spawnSync('sh', ['-c', `command -v ${t}`], { stdio: 'ignore' }).status === 0;
  const run = (command: string, env: NodeJS.ProcessEnv = process.env) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile('sh', ['-c', command], { env }, (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
      );
    });

  beforeAll(async () => {
    dir = tempDir('egress-fetch-plan-');
    server = createServer((req, res) => {
      if (req.url !== '/i.qcow2') return void res.writeHead(404).end();
      res.writeHead(200, { 'content-length': body.length });
      res.end(req.method === 'HEAD' ? undefined : body);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await new Promise((r) => server.close(r));
  });

  // test/env/up.sh installs both, so that both branches run wherever the suite does.
  it.for(TOOLS)(
    'the probe through %s finds the size and header; a missing file is unreachable, with the status',
    async (tool, ctx) => {
      if (!installed(tool)) skipBecause(ctx, `${tool} is not installed here (test/env/up.sh installs it)`);
      const other = TOOLS.find((t) => t !== tool)!;
      const env = { ...process.env, PATH: pathWithout(other, dir) };
      const probe = parseProbe(await run(probeCommand(`${base}/i.qcow2`), env));
      expect(probe).toMatchObject({ ok: true, tool, size: body.length, header: body.subarray(0, 32) });
      const missing = parseProbe(await run(probeCommand(`${base}/nothing`), env));
      expect(missing).toMatchObject({
        ok: false,
        reason: expect.stringMatching(/^the image URL does not answer from the host \(.*404/),
      });
    },
  );

  it('the cleanup stops a downloader that is still running, then removes the directory', async () => {
    const stage = join(dir, 'egress-stage.AbCd1234');
    mkdirSync(stage);
    const sleeper = execFile('sleep', ['60']);
    writeFileSync(join(stage, 'downloader.pid'), `${sleeper.pid}\n`);
    const exited = new Promise<string | null>((r) => sleeper.once('exit', (_code, signal) => r(signal)));
    expect((await run(removeStagingDirCommand(stage))).code).toBe(0);
    expect(await exited).toBe('SIGTERM');
    expect(existsSync(stage)).toBe(false);
  });

  it.for(TOOLS)(
    'the download through %s checks the digest: the right one keeps the file, a wrong one says what it got',
    async (tool, ctx) => {
      if (!installed(tool)) skipBecause(ctx, `${tool} is not installed here (test/env/up.sh installs it)`);
      const sha = createHash('sha256').update(body).digest('hex');
      const file = join(dir, `${tool}.img`);
      writeFileSync(file, '');
      const pid = join(dir, `${tool}.pid`);
      expect(parseDownload(await run(downloadCommand(tool, `${base}/i.qcow2`, file, sha, pid)), base, sha)).toEqual({
        ok: true,
        size: body.length,
      });
      expect(readFileSync(file).equals(body)).toBe(true);
      expect(existsSync(pid)).toBe(false);
      const wrong = parseDownload(
        await run(downloadCommand(tool, `${base}/i.qcow2`, file, 'c'.repeat(64), pid)),
        base,
        'c'.repeat(64),
      );
      expect(wrong).toMatchObject({ ok: false, message: expect.stringContaining(`has SHA-256 ${sha}`) });
    },
  );
});
