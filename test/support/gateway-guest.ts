/**
 * The gateway in the guest lane (issue 40): `egress-desk gateway` run inside the test
 * namespace (where the guests' addresses are), an echo server on the bridge address that
 * answers the caller's address (the guests reach it on their own network, with no NAT, so
 * the answer is the member's own address), and curl through the gateway from inside the
 * namespace, with no retries, so every failure counts.
 */
import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { expect } from 'vitest';
import { netnsCurlArgs } from '../../bench/guest-setup.js';
import { FileCredentialsStore, credentialsPath } from '../../electron/services/credentials/credentials-store.js';
import { accessLogPath } from '../../electron/services/gateway/access-log.js';
import { recentAccessEntries } from '../../electron/services/gateway/access-log-reader.js';
import type { ProxyCredentials } from '../../shared/proxy.js';
import { cliInNetns } from './cli.js';
import type { TestEnv } from './env.js';
import type { GuestHome } from './guest.js';
import { waitFor } from './wait.js';

const run = promisify(execFile);

/** A server on the bridge address inside the namespace that answers each GET with the caller's address. */
export function namespaceEchoServer(env: TestEnv, port: number): { child: ChildProcess; url: string } {
  const program = [
    'import http.server',
    'class H(http.server.BaseHTTPRequestHandler):',
    '    def do_GET(self):',
    '        body = self.client_address[0].encode()',
    '        self.send_response(200)',
    "        self.send_header('Content-Length', str(len(body)))",
    '        self.end_headers()',
    '        self.wfile.write(body)',
    '    def log_message(self, *a):',
    '        pass',
    `http.server.ThreadingHTTPServer(('${env.EGRESS_TEST_BRIDGE_IP}', ${port}), H).serve_forever()`,
  ].join('\n');
  const child = spawn('ip', ['netns', 'exec', env.EGRESS_TEST_NETNS, 'python3', '-c', program], {
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  return { child, url: `http://${env.EGRESS_TEST_BRIDGE_IP}:${port}/` };
}

/** A running gateway: its HTTP and SOCKS5 addresses (inside the namespace) and the client's URL. */
export interface GuestGateway {
  child: ChildProcess;
  /** `http://CLIENT:PASSWORD@127.0.0.1:PORT`, as it printed it. */
  url: URL;
  socksPort: number;
  stderr: () => string;
}

/** Starts `egress-desk gateway --port 0 --socks-port 0` on `home` inside the namespace; resolves once it prints its URL. */
export async function startGuestGateway(env: TestEnv, home: GuestHome): Promise<GuestGateway> {
  const [command, argv] = cliInNetns(env.EGRESS_TEST_NETNS, [
    '--config',
    home.config,
    'gateway',
    '--port',
    '0',
    '--socks-port',
    '0',
  ]);
  const child = spawn(command, argv, {
    env: { PATH: process.env.PATH ?? '', HOME: home.home, EGRESS_DESK_HOME: join(home.home, 'data') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const ready = await waitFor('the gateway to print its address', 120_000, async () => {
    if (child.exitCode !== null) throw new Error(`the gateway exited ${child.exitCode}: ${stderr}`);
    const socks = /SOCKS5 on port (\d+)/.exec(stderr);
    const first = stdout.split('\n')[0];
    return socks && first ? { url: new URL(first), socksPort: Number(socks[1]) } : undefined;
  });
  return { child, ...ready, stderr: () => stderr };
}

/**
 * One GET of `target` through the gateway at `gateway` as `user` (its password the
 * client's), from inside the namespace, no retries: the HTTP status and the body, or the
 * status 0 and curl's error when it failed.
 */
export async function throughGateway(
  env: TestEnv,
  gateway: URL,
  user: string,
  target: string,
  password = decodeURIComponent(gateway.password),
): Promise<{ status: number; body: string }> {
  const proxy = `http://${gateway.host}`;
  // Asynchronous: a synchronous child would hold the event loop, and libvirtd drops the
  // lane's client when it misses keepalives for 30 s (test/support/guest-lane.ts).
  try {
    const { stdout } = await run(
      'ip',
      netnsCurlArgs(env, ['-x', proxy, '--proxy-user', `${user}:${password}`, '-w', '\n%{http_code}'], target),
      { encoding: 'utf8', timeout: 60_000 },
    );
    const at = stdout.lastIndexOf('\n');
    return { status: Number(stdout.slice(at + 1)), body: stdout.slice(0, at) };
  } catch (err) {
    const e = err as { stderr?: string };
    return { status: 0, body: e.stderr ?? String(err) };
  }
}

/** The two members the guest lane puts behind the gateway: an HTTP and a SOCKS5 proxy, each labelled `role=<kind>`. */
export interface GuestMembers {
  http: { name: string; address: string };
  socks: { name: string; address: string; domain: string; credentials: ProxyCredentials };
}

/**
 * The gateway over real proxies (issue 40's guest-lane checks, on two members: one HTTP
 * and one SOCKS5): plain requests are spread over both; a session stays on one; a label
 * selection leaves only from the matching member; a wrong password is a 407 and nothing is
 * relayed; with the SOCKS5 member paused (`virsh suspend`) no request fails, the ones that
 * were given it before health noticed going to the other member within the request.
 */
export async function expectGatewayServes(env: TestEnv, home: GuestHome, members: GuestMembers): Promise<void> {
  // The gateway reads members' credentials from its home: the SOCKS5 proxy's were written to another.
  await new FileCredentialsStore(credentialsPath(join(home.home, 'data'))).set(
    members.socks.name,
    members.socks.credentials,
  );
  const echo = namespaceEchoServer(env, 18094);
  const gateway = await startGuestGateway(env, home);
  try {
    expect(gateway.stderr()).toMatch(/: 2 of 2 proxies usable now/);
    const client = decodeURIComponent(gateway.url.username);
    const ask = (user: string) => throughGateway(env, gateway.url, user, echo.url);
    /** `n` requests one after another (sequential: the spread and the failover are about order). */
    const exits = async (user: string, n: number) => {
      const out = [];
      for (let i = 0; i < n; i++) out.push(await ask(user));
      return out;
    };
    const { http, socks } = members;

    // Sequential plain requests: least connections with ties in turn gives each member half (±2 for the echo server's start).
    const plain = await exits(client, 20);
    expect(plain.map((r) => r.status)).toEqual(plain.map(() => 200));
    const count = (address: string) => plain.filter((r) => r.body === address).length;
    expect(count(http.address) + count(socks.address)).toBe(20);
    expect(Math.abs(count(http.address) - count(socks.address)), JSON.stringify(plain)).toBeLessThanOrEqual(2);

    const sticky = new Set((await exits(`${client}-session-s1`, 10)).map((r) => r.body));
    expect(sticky.size).toBe(1);
    expect(new Set((await exits(`${client}-label-role=socks`, 6)).map((r) => r.body))).toEqual(
      new Set([socks.address]),
    );
    expect(await ask(`${client}-label-role=none`)).toMatchObject({ status: 502 });
    const wrong = await throughGateway(env, gateway.url, client, echo.url, 'not-the-password');
    expect(wrong.status).toBe(407);

    // The SOCKS5 member paused: nothing fails; what went to it before health saw it goes on to the other one.
    execFileSync('virsh', ['-c', 'qemu:///system', 'suspend', socks.domain], { stdio: 'ignore', timeout: 30_000 });
    try {
      const during = await exits(client, 8);
      expect(during.map((r) => `${r.status} ${r.body}`)).toEqual(during.map(() => `200 ${http.address}`));
    } finally {
      execFileSync('virsh', ['-c', 'qemu:///system', 'resume', socks.domain], { stdio: 'ignore', timeout: 30_000 });
    }
    const log = await recentAccessEntries(accessLogPath(join(home.home, 'data')), 1_000);
    expect(log.some((e) => e.tries > 1 && e.outcome === 'ok' && e.member === http.name)).toBe(true);
    expect(log.filter((e) => e.status === 407)).toHaveLength(1);
    expect(JSON.stringify(log)).not.toContain(socks.credentials.password);
  } finally {
    gateway.child.kill('SIGTERM');
    echo.child.kill();
  }
}
