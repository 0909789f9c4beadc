/**
 * (k) Provisioning a base image on an SSH host over a 100 Mbit/s link: fetch-on-host (the
 * host downloads the image from a server near it, checks it, libvirt copies it into the
 * pool) against the upload from the workstation (ours, through a libvirt stream over SSH)
 * and `virsh vol-upload` over OpenSSH, in alternating rounds.
 *
 * The topology (shaped-link.ts): the workstation's processes run in the bench's own
 * namespace `egbench-ws`; their SSH connection crosses a veth pair shaped with `tc` to
 * `rateMbit` each way, into `egbench-h`, and reaches the test sshd on 127.0.0.1 through
 * relays. The host (that sshd's commands, and libvirtd) fetches from an HTTP server in
 * this process on 127.0.0.1: unshaped, as a data-centre host's link is next to a home one.
 * A plain TCP transfer across the link measures the shaping itself.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LibvirtClient } from '../electron/libvirt/index.js';
import { ClientApi } from '../electron/services/provider/kvm/client-api.js';
import { LocalSocketDialer } from '../electron/transport/index.js';
import { baseVolumeName } from '../electron/services/provider/kvm/names.js';
import type { BenchEnv } from './environment.js';
import { HOST_ADDRESS, SSH_PORT, type ShapedLink, leftovers, openShapedLink } from './shaped-link.js';
import { run } from './peers.js';
import { uploadFixture } from './upload.js';

const MIB = 1024 * 1024;
const VIRSH_VOLUME = 'egtest-bench-k-virsh.raw';

export interface TransferFigures {
  bytes: number;
  rateMbit: number;
  /** Seconds per round, in the order run. */
  fetch: number[];
  upload: number[];
  virsh: number[];
  /** A plain TCP transfer across the link, workstation → host side. */
  plainMbit: number;
  plainBytes: number;
  qdiscs: string;
  /** HTTP requests the server near the host saw, by User-Agent family. */
  requests: Record<string, number>;
  /** What the bench made that was still there after its cleanup (must be none). */
  leftovers: string[];
}

/** A qcow2 of `bytes` of incompressible data (written clusters), made once; and its sha256. */
function imageFixture(dir: string, bytes: number): { path: string; size: number; sha256: string } {
  const path = join(dir, `transfer-${bytes}.qcow2`);
  const sumFile = `${path}.sha256`;
  if (!existsSync(path) || !existsSync(sumFile)) {
    const raw = uploadFixture(dir, bytes);
    run('qemu-img', ['convert', '-f', 'raw', '-O', 'qcow2', raw, path]);
    const hash = createHash('sha256');
    hash.update(readFileSync(path));
    writeFileSync(sumFile, hash.digest('hex'));
  }
  return { path, size: statSync(path).size, sha256: readFileSync(sumFile, 'utf8').trim() };
}

/** HOME for the workstation's SSH: known_hosts naming the host side of the link with the test sshd's key; OpenSSH's config and wrapper for virsh. */
function workstationHome(env: BenchEnv, dir: string): { home: string; sshWrapper: string } {
  const home = join(dir, 'transfer-home');
  mkdirSync(join(home, '.ssh'), { recursive: true, mode: 0o700 });
  const [type, key] = readFileSync(env.EGRESS_TEST_HOST_KEY_PUB, 'utf8').trim().split(/\s+/);
  const knownHosts = join(home, '.ssh', 'known_hosts');
  writeFileSync(knownHosts, `[${HOST_ADDRESS}]:${SSH_PORT} ${type} ${key}\n`, { mode: 0o600 });
  const config = join(home, '.ssh', 'config');
  writeFileSync(
    config,
    `Host ${HOST_ADDRESS}\n  Port ${SSH_PORT}\n  User root\n  IdentityFile ${env.EGRESS_TEST_SSH_KEY}\n  IdentitiesOnly yes\n  StrictHostKeyChecking yes\n  UserKnownHostsFile ${knownHosts}\n`,
    { mode: 0o600 },
  );
  const sshWrapper = join(home, 'ssh');
  writeFileSync(sshWrapper, `#!/bin/sh\nexec ssh -F ${config} "$@"\n`, { mode: 0o755 });
  return { home, sshWrapper };
}

/** The image file over HTTP on 127.0.0.1 (HEAD, whole GETs, and the probe's 32-byte range). */
async function imageServer(
  file: { path: string; size: number },
  requests: Record<string, number>,
): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const family = (req.headers['user-agent'] ?? 'none').split('/')[0]!;
    requests[family] = (requests[family] ?? 0) + 1;
    if (req.url !== '/image.qcow2') return void res.writeHead(404).end();
    const range = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
    if (range) {
      const start = Number(range[1]);
      const end = Math.min(Number(range[2]), file.size - 1);
      res.writeHead(206, { 'content-length': end - start + 1, 'content-range': `bytes ${start}-${end}/${file.size}` });
      return void (req.method === 'HEAD' ? res.end() : createReadStream(file.path, { start, end }).pipe(res));
    }
    res.writeHead(200, {
      'content-length': file.size,
      'accept-ranges': 'bytes',
      'content-type': 'application/octet-stream',
    });
    if (req.method === 'HEAD') return void res.end();
    createReadStream(file.path, { highWaterMark: MIB }).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/image.qcow2` };
}

/** The commands running now: an interrupted bench stops them (and lets them clean up on the host) before the link goes. */
const running = new Set<ChildProcess>();

/** Runs a command without blocking this process (its relays and server must keep serving); resolves with stdout. */
function runAsync(cmd: string, args: string[], env?: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env: env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(child);
    child.once('exit', () => running.delete(child));
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0
        ? resolve(out)
        : reject(
            new Error(
              `${cmd} ${args.slice(0, 6).join(' ')}… exited ${code}: ${err.trim().split('\n').slice(-3).join(' ')}`,
            ),
          ),
    );
  });
}

/** Interrupts every running command and waits for it (SIGINT: the child cancels and cleans up on the host; SIGKILL after 20 s). */
async function stopRunning(): Promise<void> {
  await Promise.all(
    [...running].map(async (child) => {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGINT');
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    }),
  );
}

/** One measurement of (k), inside the shaped link: seconds. */
type Measure = () => Promise<number>;

export interface TransferOptions {
  rounds?: number;
  rateMbit?: number;
  /** The image's data (its qcow2 file is a little larger). */
  bytes?: number;
}

/** Runs (k), then checks that nothing of the shaped link is left (namespaces, veths; their qdiscs go with them). */
export async function transferFigures(
  env: BenchEnv,
  workDir: string,
  log: (line: string) => void,
  options: TransferOptions = {},
): Promise<TransferFigures> {
  const figures = await measureTransfers(env, workDir, log, options);
  return { ...figures, leftovers: leftovers() };
}

async function measureTransfers(
  env: BenchEnv,
  workDir: string,
  log: (line: string) => void,
  options: TransferOptions,
): Promise<Omit<TransferFigures, 'leftovers'>> {
  const rounds = options.rounds ?? 3;
  const rateMbit = options.rateMbit ?? 100;
  mkdirSync(workDir, { recursive: true });
  const image = imageFixture(workDir, options.bytes ?? 256 * MIB);
  const { home, sshWrapper } = workstationHome(env, workDir);
  const requests: Record<string, number> = {};
  const { server, url } = await imageServer(image, requests);
  const local = await LibvirtClient.connect(new LocalSocketDialer(env.EGRESS_TEST_SOCKET), { uri: 'qemu:///system' });
  const volumes = new ClientApi(local);
  const base = baseVolumeName(image.sha256, 'qcow2');
  const child = fileURLToPath(new URL('./transfer-child.js', import.meta.url));
  let link: ShapedLink | undefined;
  const removeVolumes = async (): Promise<void> => {
    await volumes.deleteVolume(env.EGRESS_TEST_POOL, base).catch(() => undefined);
    await volumes.deleteVolume(env.EGRESS_TEST_POOL, VIRSH_VOLUME).catch(() => undefined);
  };
  // A signal (Ctrl-C in npm run bench, a SIGTERM) still removes everything: the commands stop
  // first (a fetch cleans its staging up on the host through the link), then the link goes.
  const onSignal = (): void =>
    void stopRunning()
      .then(() => link?.close())
      .then(removeVolumes)
      .finally(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    link = await openShapedLink(rateMbit, Number(env.EGRESS_TEST_SSH_PORT));
    const ws = link;
    const inWs = async (input: object): Promise<number> => {
      const c = ws.wsCommand(process.execPath, [child, JSON.stringify(input)]);
      return (JSON.parse(await runAsync(c.cmd, c.args)) as { seconds: number }).seconds;
    };
    const plainBytes = 48 * MIB;
    const plainMbit = (plainBytes * 8) / 1e6 / (await inWs({ mode: 'plain', bytes: plainBytes }));
    log(
      `(k) the link: a plain ${plainBytes / MIB} MiB TCP transfer across it ran at ${plainMbit.toFixed(1)} Mbit/s (tc tbf ${rateMbit} Mbit/s each way)`,
    );

    const host = {
      home,
      key: env.EGRESS_TEST_SSH_KEY,
      pool: env.EGRESS_TEST_POOL,
      socket: env.EGRESS_TEST_SOCKET,
      sha256: image.sha256,
    };
    const uri = `qemu+ssh://root@${HOST_ADDRESS}:${SSH_PORT}/system?command=${encodeURIComponent(sshWrapper)}&no_tty=1`;
    const sshEnv = { ...process.env, HOME: home };
    const measures: Record<'fetch' | 'upload' | 'virsh', Measure> = {
      fetch: () => inWs({ mode: 'fetch', ...host, url }),
      upload: () => inWs({ mode: 'upload', ...host, file: image.path, size: image.size }),
      virsh: async () => {
        const virsh = (...args: string[]) => ws.wsCommand('virsh', ['-c', uri, ...args]);
        const create = virsh(
          'vol-create-as',
          env.EGRESS_TEST_POOL,
          VIRSH_VOLUME,
          String(image.size),
          '--format',
          'raw',
        );
        await runAsync(create.cmd, create.args, sshEnv);
        const upload = virsh('vol-upload', '--pool', env.EGRESS_TEST_POOL, VIRSH_VOLUME, image.path);
        const started = performance.now();
        await runAsync(upload.cmd, upload.args, sshEnv);
        return (performance.now() - started) / 1000;
      },
    };
    const figures = { fetch: [] as number[], upload: [] as number[], virsh: [] as number[] };
    const order: Array<keyof typeof measures> = ['fetch', 'upload', 'virsh'];
    for (let round = 0; round < rounds; round++) {
      for (const name of round % 2 ? [...order].reverse() : order) {
        // Each round starts from nothing on the host: no base, no virsh volume.
        await volumes.deleteVolume(env.EGRESS_TEST_POOL, base);
        await volumes.deleteVolume(env.EGRESS_TEST_POOL, VIRSH_VOLUME);
        const seconds = await measures[name]();
        figures[name].push(seconds);
        log(
          `(k) round ${round + 1}: ${name} ${seconds.toFixed(1)} s (${(image.size / MIB / seconds).toFixed(1)} MiB/s)`,
        );
      }
    }
    return { bytes: image.size, rateMbit, ...figures, plainMbit, plainBytes, qdiscs: link.qdiscs(), requests };
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await stopRunning();
    await link?.close();
    await removeVolumes();
    await local.close();
    await new Promise((r) => server.close(r));
  }
}
