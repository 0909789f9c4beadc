/**
 * A shaped link for benchmark (k): two network namespaces of the bench's own, the
 * workstation's (`egbench-ws`) and the host's side of the link (`egbench-h`), joined by a
 * veth pair whose two ends each send through a `tc` token bucket of the given rate. Only
 * addresses inside these namespaces are used; what lies beyond the link (the test sshd on
 * 127.0.0.1) is reached through a relay in `egbench-h` and a unix socket (a path in the
 * filesystem, which every namespace sees) to a relay in the bench process itself.
 *
 * Everything it makes goes in {@link ShapedLink.close} (and any leftover of an earlier run
 * that was killed, before it starts): relay processes first (a process in a namespace
 * keeps it alive), then the namespaces, which take the veth pair and its qdiscs with them.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { type Server, connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const WS_NS = 'egbench-ws';
export const HOST_NS = 'egbench-h';
const WS_DEV = 'egb-ws';
const HOST_DEV = 'egb-h';
/** The link's two ends (a /30 inside the bench's own namespaces: nothing else routes it). */
export const WS_ADDRESS = '10.231.0.2';
export const HOST_ADDRESS = '10.231.0.1';
/** The relay's port on the host side (to the sshd), and the sink's (a plain transfer's end). */
export const SSH_PORT = 2222;
export const SINK_PORT = 5001;

function ip(args: string[], allowFailure = false): string {
  const r = spawnSync('ip', args, { encoding: 'utf8' });
  if (r.status !== 0 && !allowFailure)
    throw new Error(`ip ${args.join(' ')} exited ${r.status}: ${(r.stderr || r.error?.message || '').trim()}`);
  return r.stdout;
}

function inNs(ns: string, cmd: string, args: string[]): void {
  ip(['netns', 'exec', ns, cmd, ...args]);
}

/** PIDs of the processes inside a namespace. */
function pidsIn(ns: string): number[] {
  return ip(['netns', 'pids', ns], true)
    .split('\n')
    .filter((l) => /^\d+$/.test(l.trim()))
    .map(Number);
}

/** Namespaces (and so veths and qdiscs) of an earlier run, and any process still in them: only this bench's names. */
export function removeLeftovers(): string[] {
  const present = new Set(
    ip(['netns', 'list'], true)
      .split('\n')
      .map((l) => l.split(' ')[0]!),
  );
  const removed: string[] = [];
  for (const ns of [WS_NS, HOST_NS]) {
    if (!present.has(ns)) continue;
    for (const pid of pidsIn(ns)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
    ip(['netns', 'del', ns]);
    removed.push(ns);
  }
  return removed;
}

/** What the bench made that is still there (namespaces, links): empty once closed. */
export function leftovers(): string[] {
  const namespaces = ip(['netns', 'list'], true)
    .split('\n')
    .map((l) => l.split(' ')[0]!)
    .filter((n) => n === WS_NS || n === HOST_NS);
  const links = ip(['-o', 'link', 'show'], true)
    .split('\n')
    .map((l) => /^\d+:\s+([^:@\s]+)/.exec(l)?.[1])
    .filter((n): n is string => n === WS_DEV || n === HOST_DEV);
  return [...namespaces.map((n) => `netns ${n}`), ...links.map((l) => `link ${l}`)];
}

export interface ShapedLink {
  /** Runs a command on the workstation's side (inside `egbench-ws`). */
  wsCommand(cmd: string, args: string[]): { cmd: string; args: string[] };
  /** The qdiscs as `tc` reports them, both ends (for the report). */
  qdiscs(): string;
  close(): Promise<void>;
}

/**
 * Makes the namespaces, the veth pair shaped to `rateMbit` in each direction, and the relay
 * from `HOST_ADDRESS:SSH_PORT` to `sshPort` on this machine's loopback. A failure part-way
 * undoes what was made.
 */
export async function openShapedLink(rateMbit: number, sshPort: number): Promise<ShapedLink> {
  removeLeftovers();
  const dir = mkdtempSync(join(tmpdir(), 'egbench-link-'));
  const socket = join(dir, 'ssh.sock');
  let loopRelay: Server | undefined;
  let hostRelay: ChildProcess | undefined;
  const close = async (): Promise<void> => {
    if (hostRelay && hostRelay.exitCode === null) {
      const exited = new Promise((r) => hostRelay!.once('exit', r));
      hostRelay.kill('SIGKILL');
      await exited;
    }
    await new Promise((r) => (loopRelay ? loopRelay.close(r) : r(undefined)));
    removeLeftovers();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    ip(['netns', 'add', WS_NS]);
    ip(['netns', 'add', HOST_NS]);
    ip(['link', 'add', WS_DEV, 'netns', WS_NS, 'type', 'veth', 'peer', 'name', HOST_DEV, 'netns', HOST_NS]);
    for (const [ns, dev, address] of [
      [WS_NS, WS_DEV, WS_ADDRESS],
      [HOST_NS, HOST_DEV, HOST_ADDRESS],
    ] as const) {
      ip(['-n', ns, 'addr', 'add', `${address}/30`, 'dev', dev]);
      ip(['-n', ns, 'link', 'set', 'lo', 'up']);
      ip(['-n', ns, 'link', 'set', dev, 'up']);
      // A token bucket on each end's egress: each direction of the link carries at most rateMbit.
      inNs(ns, 'tc', [
        'qdisc',
        'add',
        'dev',
        dev,
        'root',
        'tbf',
        'rate',
        `${rateMbit}mbit`,
        'burst',
        '64kb',
        'latency',
        '50ms',
      ]);
    }
    // The loopback end: each connection on the unix socket is one to the sshd on 127.0.0.1.
    const server = createServer((c) => {
      const s = connect(sshPort, '127.0.0.1');
      c.pipe(s).pipe(c);
      c.on('error', () => s.destroy());
      s.on('error', () => c.destroy());
    });
    loopRelay = server;
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(socket, resolve));
    const relay = spawn(
      'ip',
      [
        'netns',
        'exec',
        HOST_NS,
        process.execPath,
        fileURLToPath(new URL('./link-relay.js', import.meta.url)),
        HOST_ADDRESS,
        String(SSH_PORT),
        socket,
        String(SINK_PORT),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    hostRelay = relay;
    await new Promise<void>((resolve, reject) => {
      relay.once('exit', (code) => reject(new Error(`the link relay exited ${code} before it was ready`)));
      relay.stdout!.once('data', () => resolve());
    });
  } catch (err) {
    await close();
    throw err;
  }
  return {
    wsCommand: (cmd, args) => ({ cmd: 'ip', args: ['netns', 'exec', WS_NS, cmd, ...args] }),
    qdiscs: () =>
      [WS_NS, HOST_NS]
        .map(
          (ns) =>
            `${ns}: ${ip(['netns', 'exec', ns, 'tc', 'qdisc', 'show', 'dev', ns === WS_NS ? WS_DEV : HOST_DEV]).trim()}`,
        )
        .join('; '),
    close,
  };
}
