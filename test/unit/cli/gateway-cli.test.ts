/**
 * `egress-desk gateway` and `gateway clients …` (electron/cli/commands/gateway.ts, issue
 * 40), the built CLI on a config whose only host cannot be reached: clients are added with
 * a password and a URL, listed without passwords, refused with a reason; the gateway makes a
 * first client on loopback, refuses a bind outside loopback without clients, and, with no
 * proxy to use, answers a client 502 with the reason, a missing password 407, and logs
 * both, then stops on SIGTERM.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliProcess } from '../../support/cli.js';
import { cliBin } from '../../support/dist.js';
import { getThroughProxy } from '../../support/little-proxy.js';
import { tempDir } from '../../support/temp-dir.js';
import { writeUnreachableHostConfig } from '../../support/unreachable-host.js';

function home() {
  const dir = tempDir('egress-gw-cli-');
  const config = writeUnreachableHostConfig(dir);
  const env = { HOME: dir, EGRESS_DESK_HOME: join(dir, 'data') };
  return { dir, env, run: (...args: string[]) => runCliProcess(['--config', config, ...args], env), config };
}

describe('egress-desk gateway clients', () => {
  it('adds, lists without passwords, prints a URL, refuses bad names and unknown clients, removes', async () => {
    const h = home();
    const added = await h.run('gateway', 'clients', 'add', 'ci', '--allow', '10.0.0.0/8', '127.0.0.1');
    expect(added.code, added.stderr).toBe(0);
    const url = new URL(added.stdout.trim());
    expect(url.username).toBe('ci');
    expect(url.password).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(url.host).toBe('127.0.0.1:3130');
    const list = await h.run('gateway', 'clients', 'list', '--json');
    expect(JSON.parse(list.stdout)).toEqual([{ name: 'ci', allow: ['10.0.0.0/8', '127.0.0.1'] }]);
    expect(list.stdout).not.toContain(url.password);
    expect((await h.run('gateway', 'clients', 'url', 'ci')).stdout.trim()).toBe(
      `http://ci:${url.password}@127.0.0.1:3130`,
    );
    const twice = await h.run('gateway', 'clients', 'add', 'ci');
    expect([twice.code, twice.stderr]).toEqual([1, expect.stringContaining('a gateway client called "ci" exists')]);
    const bad = await h.run('gateway', 'clients', 'add', 'ci-session-x');
    expect([bad.code, bad.stderr]).toEqual([1, expect.stringContaining('cannot hold "-session-"')]);
    const settings = await h.run(
      'gateway',
      'client-settings',
      'ci',
      '--format',
      'urls',
      '--session',
      '7',
      '--label',
      'team=web',
      '--with-credentials',
      '--port',
      '9999',
    );
    expect(settings.stdout).toBe(`http://ci-session-7-label-team%3Dweb:${url.password}@127.0.0.1:9999\n`);
    const socks = await h.run('gateway', 'client-settings', 'ci', '--socks', '--format', 'curl');
    expect(socks.stdout).toContain('socks5-hostname = "127.0.0.1:3131"');
    expect(socks.stdout).not.toContain(url.password);
    expect(socks.stderr).toContain('user name: ci (the password: --with-credentials)');
    const pac = await h.run(
      'gateway',
      'client-settings',
      'ci',
      '--format',
      'pac',
      '--session',
      '7',
      '--with-credentials',
    );
    expect(pac.stdout).toContain('return "PROXY 127.0.0.1:3130";');
    expect(pac.stdout).not.toContain(url.password);
    expect(pac.stderr).toContain('user name: ci-session-7 (a PAC file holds no credentials');
    const badSession = await h.run('gateway', 'client-settings', 'ci', '--session', 'a-b');
    expect([badSession.code, badSession.stderr]).toEqual([2, expect.stringContaining('a session ID must be')]);
    expect((await h.run('gateway', 'clients', 'remove', 'ci')).code).toBe(0);
    const gone = await h.run('gateway', 'clients', 'remove', 'ci');
    expect([gone.code, gone.stderr]).toEqual([1, expect.stringContaining('no gateway client is called "ci"')]);
  });
});

describe('egress-desk gateway', () => {
  it('refuses to bind outside loopback without clients, and a bad --port or --bind', async () => {
    const h = home();
    const open = await h.run('gateway', '--bind', '0.0.0.0', '--port', '0');
    expect(open.code).toBe(1);
    expect(open.stderr).toMatch(/only with client credentials, and none are set/);
    expect((await h.run('gateway', '--port', '70000')).code).toBe(2);
    const socks = await h.run('gateway', '--socks-port', 'x');
    expect([socks.code, socks.stderr]).toEqual([2, expect.stringContaining('--socks-port: must be a port number')]);
    expect((await h.run('gateway', '--bind', 'example.com')).code).toBe(2);
  });

  it('makes a first client on loopback, answers 502 with no proxy to use and 407 without a password, logs both, stops on SIGTERM', async () => {
    const h = home();
    const child = spawn(
      process.execPath,
      [cliBin, '--config', h.config, 'gateway', '--port', '0', '--socks-port', '0'],
      {
        env: { PATH: process.env.PATH ?? '', ...h.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exited = new Promise<number | null>((r) => child.on('close', r));
    let url = new URL('http://unset');
    try {
      await expect.poll(() => stdout, { timeout: 60_000 }).toMatch(/^http:\/\/desk:/);
      expect(stderr).toMatch(/made "desk"/);
      expect(stderr).toMatch(/\(SOCKS5 on port \d+\): 0 of 0 proxies usable now/);
      url = new URL(stdout.trim().split('\n')[0]!);
      const ask = (auth?: string) => getThroughProxy(url.hostname, url.port, 'http://127.0.0.1:9/', auth);
      expect(await ask(`desk:${url.password}`)).toEqual({
        status: 502,
        body: 'the fleet has no proxy the gateway can use\n',
      });
      expect((await ask()).status).toBe(407);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    const log = readFileSync(join(h.dir, 'data', 'logs', 'gateway-access.log'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { outcome: string; status: number; client?: string });
    expect(log.map((e) => [e.outcome, e.status, e.client])).toEqual([
      ['no-member', 502, 'desk'],
      ['refused', 407, undefined],
    ]);
    const json = await h.run('gateway', 'log', '--json', '--lines', '1');
    expect(
      json.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { status: number }),
    ).toMatchObject([{ status: 407 }]);
    const text = await h.run('gateway', 'log');
    expect(text.stdout).toMatch(
      /desk {2}GET http:\/\/127\.0\.0\.1:9\/ {2}no-member 502: the fleet has no proxy the gateway can use/,
    );
    expect(text.stdout).toMatch(
      / - {2}GET http:\/\/127\.0\.0\.1:9\/ {2}refused 407: the gateway needs a client name and password/,
    );
    expect(text.stdout).not.toContain(url.password);
    expect((await h.run('gateway', 'log', '--lines', 'x')).code).toBe(2);
  });
});
