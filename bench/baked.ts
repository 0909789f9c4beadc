/**
 * (j) Click to a proxy that answers, on the bare image (`test/env/guest-image.sh --bare`:
 * no tinyproxy, no qemu-guest-agent), three ways, each timed from its first call to the
 * proxy port accepting a connection:
 *
 * - **ours, first launch**: `proxies launch --wait` on a host where the image is not baked,
 *   with the site mirror (the flat apt repository beside the image, served inside the test
 *   namespace) given through `kvm.vendorData`, as the guest lane does; the figure is the
 *   CLI's `proxy` step done (the app saying ready);
 * - **ours, baked**: the launch after `images bake` on that host, from a config with no
 *   mirror at all (its vendor-data installs nothing); its `base` step must name the baked
 *   volume and the mirror must see no request during it;
 * - **the peer**, the way it is done by hand: an overlay of the same image in the test pool,
 *   a NoCloud seed made with genisoimage (user-data installing tinyproxy from the same
 *   mirror, the same port, allow list and kind of credentials), `virt-install --import` on
 *   the same network, then a loop over the network's DHCP leases and a port probe from inside
 *   the namespace; timed from the virt-install call.
 *
 * Every proxy is checked by fetching a page through it (not timed). Rounds alternate who
 * goes first; each round bakes afresh (the baked volume is removed after its launch), so
 * each round's first launch is a real unbaked one. Everything made is removed, and
 * whatever is left is reported.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { stringify } from 'yaml';
import { bakedVolumeName, proxyRecipe } from '../electron/services/provider/kvm/bake-recipe.js';
import { baseVolumeName } from '../electron/services/provider/kvm/names.js';
import { buildTinyproxyConf } from '../electron/services/provider/kvm/tinyproxy-conf.js';
import type { BenchEnv } from './environment.js';
import { CLI, GUEST_PAGE_MARK, PORT_WATCH, exited, guestCliEnv, guestConfig, namespaceHttpServer, siteMirrorVendorData, testNetworkCidr } from './guest-setup.js';

const OURS = 'egtest-bench-j';
const PEER = 'egtest-bench-j-peer';
/** The peer's copy of the bare image in the pool (its overlays' backing file). */
const PEER_BASE = 'egtest-bench-j-bare.qcow2';
const PEER_SEED = `${PEER}-seed.iso`;
const PORT = 3128;
const MIRROR_PORT = 18091;
const PAGE_PORT = 18092;
const LAUNCH_TIMEOUT_S = 600;

export interface BakedRound {
  /** ours, unbaked, packages from the mirror: launch call to the app saying ready, ms. */
  firstMs: number;
  /** `images bake` on the host, ms (for scale: it is paid once per host and image). */
  bakeMs: number;
  /** ours on the baked base, no mirror: launch call to ready, ms. */
  bakedMs: number;
  /** by hand: virt-install call to the port accepting, ms. */
  peerMs: number;
  /** Of peerMs: the virt-install process itself (volume, define, start). */
  peerVirtInstallMs: number;
  /** Of peerMs: until the lease showed an address. */
  peerLeaseMs: number;
  /** Writing the seed's files and genisoimage, before the peer's clock starts. */
  peerSeedMs: number;
  /** ours went first in this round. */
  oursFirst: boolean;
}

export interface BakedFigures {
  rounds: BakedRound[];
  /** Domains or volumes still there after the cleanup (must be empty). */
  leftovers: string[];
}

function virsh(...args: string[]): string {
  const r = spawnSync('virsh', ['-c', 'qemu:///system', ...args], { encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0) throw new Error(`virsh ${args.join(' ')}: ${(r.stderr || r.stdout).trim()}`);
  return r.stdout;
}

/** virsh without caring whether it worked: cleanup of what may not exist. */
function virshQuiet(...args: string[]): void {
  spawnSync('virsh', ['-c', 'qemu:///system', ...args], { stdio: 'ignore', timeout: 120_000 });
}

function domains(): string[] {
  return virsh('list', '--all', '--name').split('\n').map((l) => l.trim()).filter(Boolean).sort();
}

function volumes(pool: string): string[] {
  virshQuiet('pool-refresh', pool);
  // `vol-list` prints a table: a header, a rule, then "name path" rows (names have no spaces here).
  return virsh('vol-list', pool).split('\n').slice(2).map((l) => l.trim().split(/\s+/)[0] ?? '').filter(Boolean).sort();
}

function bareImage(): { path: string; sha256: string } {
  const r = spawnSync('bash', ['test/env/guest-image.sh', '--bare'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 20 * 60_000 });
  if (r.status !== 0) throw new Error(`test/env/guest-image.sh --bare failed (exit ${r.status})`);
  const path = r.stdout.trim().split('\n').pop()!;
  return { path, sha256: spawnSync('sha256sum', [path], { encoding: 'utf8' }).stdout.split(' ')[0]! };
}

interface Home {
  dir: string;
  mirrorConfig: string;
  plainConfig: string;
  env: NodeJS.ProcessEnv;
}

function cli(h: Home, config: string, ...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, '--config', config, ...args], { env: h.env, encoding: 'utf8', timeout: 30 * 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** One `proxies launch --wait`: ms from the call to its `proxy` step done, and its progress lines. */
async function oursLaunch(env: BenchEnv, h: Home, config: string): Promise<{ ms: number; url: string; lines: string[] }> {
  const allow = testNetworkCidr(env);
  const t0 = Date.now();
  const launch = spawn(process.execPath, [CLI, '--config', config, 'proxies', 'launch', OURS, '--wait', '--timeout', String(LAUNCH_TIMEOUT_S), '--port', String(PORT), '--allow', allow], { env: h.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  launch.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  let readyAt = 0;
  const lines: string[] = [];
  for await (const line of createInterface({ input: launch.stderr! })) {
    lines.push(line);
    if (!readyAt && /^\s+proxy done/.test(line)) readyAt = Date.now();
  }
  const code = await exited(launch);
  if (code !== 0 || !readyAt) throw new Error(`the launch did not say ready (exit ${code}): ${lines.slice(-5).join(' | ')}`);
  return { ms: readyAt - t0, url: stdout.trim(), lines };
}

/** Fetches the page through the proxy from inside the namespace: the proxy forwards, with its credentials. */
function checkForwards(env: BenchEnv, proxyUrl: string, who: string): void {
  const r = spawnSync('ip', ['netns', 'exec', env.EGRESS_TEST_NETNS, 'curl', '-sS', '--max-time', '20', '--retry', '5', '--retry-all-errors', '-x', proxyUrl, `http://${env.EGRESS_TEST_BRIDGE_IP}:${PAGE_PORT}/index.html`], { encoding: 'utf8', timeout: 180_000 });
  if (r.status !== 0 || !r.stdout.includes(GUEST_PAGE_MARK)) throw new Error(`${who}: the proxy did not forward the page (curl exit ${r.status}: ${r.stderr.trim()})`);
}

function oursDelete(h: Home): void {
  spawnSync(process.execPath, [CLI, '--config', h.plainConfig, 'proxies', 'delete', OURS], { env: h.env, stdio: 'ignore', timeout: 300_000 });
}

/** ours: the first launch (mirror), the bake, the baked launch (no mirror); the proxy and the baked volume removed after. */
async function oursRound(env: BenchEnv, h: Home, baked: string, mirror: ReturnType<typeof namespaceHttpServer>, log: (line: string) => void): Promise<Pick<BakedRound, 'firstMs' | 'bakeMs' | 'bakedMs'>> {
  try {
    const before = mirror.requests().length;
    const first = await oursLaunch(env, h, h.mirrorConfig);
    const base = first.lines.find((l) => /^\s+base done/.test(l)) ?? '';
    if (base.includes(baked)) throw new Error(`the first launch used the baked base: ${base.trim()}`);
    const fetched = mirror.requests().slice(before).join('\n');
    if (!/tinyproxy_[^ ]+\.deb/.test(fetched)) throw new Error('the first launch did not fetch tinyproxy from the mirror');
    checkForwards(env, first.url, 'ours, first launch');
    log(`(j)   ours, first launch (mirror): ${(first.ms / 1000).toFixed(1)} s to ready; ${base.trim()}`);
    oursDelete(h);

    const t0 = Date.now();
    const b = cli(h, h.mirrorConfig, 'images', 'bake', 'guest', '--host', 'local');
    const bakeMs = Date.now() - t0;
    if (b.code !== 0 || !b.stdout.includes(baked)) throw new Error(`images bake failed (exit ${b.code}): ${b.stderr.trim().split('\n').slice(-3).join(' | ')}`);
    log(`(j)   ours, images bake: ${(bakeMs / 1000).toFixed(1)} s`);

    // The server's log lines arrive as events: let those of the bake (a synchronous spawn) in first.
    await sleep(1000);
    const quiet = mirror.requests().length;
    const second = await oursLaunch(env, h, h.plainConfig);
    const bakedBase = second.lines.find((l) => /^\s+base done/.test(l)) ?? '';
    if (!bakedBase.includes(baked)) throw new Error(`the launch after the bake did not use the baked base: ${bakedBase.trim() || second.lines.slice(-5).join(' | ')}`);
    const asked = mirror.requests().slice(quiet);
    if (asked.length > 0) throw new Error(`the baked launch asked the mirror: ${asked.join(' | ')}`);
    checkForwards(env, second.url, 'ours, baked');
    log(`(j)   ours, baked, no mirror: ${(second.ms / 1000).toFixed(1)} s to ready`);
    return { firstMs: first.ms, bakeMs, bakedMs: second.ms };
  } finally {
    oursDelete(h);
    if (volumes(env.EGRESS_TEST_POOL).includes(baked)) virshQuiet('vol-delete', '--pool', env.EGRESS_TEST_POOL, baked);
  }
}

function randomMac(): string {
  const b = randomBytes(3);
  return `52:54:00:${[...b].map((x) => x.toString(16).padStart(2, '0')).join(':')}`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function peerCleanup(env: BenchEnv): void {
  if (domains().includes(PEER)) {
    virshQuiet('destroy', PEER);
    virshQuiet('undefine', PEER, '--nvram');
    virshQuiet('undefine', PEER);
  }
  for (const v of volumes(env.EGRESS_TEST_POOL)) if (v.startsWith(PEER)) virshQuiet('vol-delete', '--pool', env.EGRESS_TEST_POOL, v);
}

/** By hand: seed with genisoimage, virt-install --import, leases, port probe. */
async function peerRound(env: BenchEnv, mirrorUrl: string, mirror: ReturnType<typeof namespaceHttpServer>, log: (line: string) => void): Promise<Pick<BakedRound, 'peerMs' | 'peerVirtInstallMs' | 'peerLeaseMs' | 'peerSeedMs'>> {
  const allow = testNetworkCidr(env);
  const password = randomBytes(12).toString('base64url').replace(/[-_]/g, 'x');
  const mac = randomMac();
  const seedDir = mkdtempSync(join(tmpdir(), 'egress-bench-j-seed-'));
  const seedPath = join(env.EGRESS_TEST_POOL_DIR, PEER_SEED);
  try {
    const s0 = Date.now();
    // What a person writes: the mirror as the apt source, tinyproxy from it, the same configuration file.
    const userData = {
      hostname: PEER,
      apt: { preserve_sources_list: false, sources_list: `deb [trusted=yes] ${mirrorUrl} ./\n` },
      packages: ['tinyproxy'],
      write_files: [{ path: '/etc/tinyproxy/tinyproxy.conf', content: buildTinyproxyConf({ port: PORT, allow: [allow], credentials: { username: 'egress', password } }) }],
      runcmd: [['systemctl', 'restart', 'tinyproxy']],
    };
    writeFileSync(join(seedDir, 'user-data'), `#cloud-config\n${stringify(userData, { lineWidth: 0 })}`);
    writeFileSync(join(seedDir, 'meta-data'), stringify({ 'instance-id': `${PEER}-${randomBytes(4).toString('hex')}`, 'local-hostname': PEER }));
    const iso = spawnSync('genisoimage', ['-quiet', '-output', seedPath, '-volid', 'cidata', '-joliet', '-rock', join(seedDir, 'user-data'), join(seedDir, 'meta-data')], { encoding: 'utf8' });
    if (iso.status !== 0) throw new Error(`genisoimage: ${iso.stderr.trim()}`);
    const peerSeedMs = Date.now() - s0;

    const before = mirror.requests().length;
    const t0 = Date.now();
    const vi = spawnSync(
      'virt-install',
      [
        '--connect', 'qemu:///system',
        '--name', PEER,
        '--virt-type', 'qemu',
        '--machine', 'q35',
        '--memory', '512',
        '--vcpus', '1',
        '--osinfo', 'detect=on,require=off',
        '--import',
        '--disk', `pool=${env.EGRESS_TEST_POOL},size=4,format=qcow2,backing_store=${join(env.EGRESS_TEST_POOL_DIR, PEER_BASE)},backing_format=qcow2,bus=virtio`,
        '--controller', 'type=scsi,model=virtio-scsi',
        '--disk', `path=${seedPath},device=cdrom,bus=scsi`,
        '--network', `network=${env.EGRESS_TEST_NETWORK},model=virtio,mac=${mac}`,
        '--rng', '/dev/urandom',
        '--graphics', 'none',
        '--noautoconsole',
      ],
      { encoding: 'utf8', timeout: 300_000 },
    );
    const peerVirtInstallMs = Date.now() - t0;
    if (vi.status !== 0) throw new Error(`virt-install failed (exit ${vi.status}): ${(vi.stderr || vi.stdout).trim().split('\n').slice(-3).join(' | ')}`);

    let address: string | undefined;
    while (!address) {
      if (Date.now() - t0 > LAUNCH_TIMEOUT_S * 1000) throw new Error(`no DHCP lease for ${mac} within ${LAUNCH_TIMEOUT_S} s`);
      address = /(\d+\.\d+\.\d+\.\d+)\/\d+/.exec(virsh('net-dhcp-leases', env.EGRESS_TEST_NETWORK, '--mac', mac))?.[1];
      if (!address) await sleep(200);
    }
    const peerLeaseMs = Date.now() - t0;
    const remaining = LAUNCH_TIMEOUT_S * 1000 - (Date.now() - t0);
    const w = spawnSync('ip', ['netns', 'exec', env.EGRESS_TEST_NETNS, process.execPath, PORT_WATCH, address, String(PORT), String(Math.max(remaining, 1000))], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: remaining + 10_000 });
    if (w.status !== 0) throw new Error(`the peer's port ${address}:${PORT} did not open (port-watch exit ${w.status})`);
    const seen = JSON.parse(w.stdout) as { openAt: number };
    const peerMs = seen.openAt - t0;
    await sleep(1000); // the mirror's log lines, read while the synchronous spawns blocked the loop
    if (!/tinyproxy_[^ ]+\.deb/.test(mirror.requests().slice(before).join('\n'))) throw new Error('the peer did not fetch tinyproxy from the mirror');
    checkForwards(env, `http://egress:${password}@${address}:${PORT}`, 'peer');
    log(`(j)   by hand (virt-install): ${(peerMs / 1000).toFixed(1)} s to the port answering (virt-install ${(peerVirtInstallMs / 1000).toFixed(1)} s, lease at ${(peerLeaseMs / 1000).toFixed(1)} s; seed ${peerSeedMs} ms before)`);
    return { peerMs, peerVirtInstallMs, peerLeaseMs, peerSeedMs };
  } finally {
    rmSync(seedDir, { recursive: true, force: true });
    peerCleanup(env);
  }
}

/** `rounds` rounds of ours (first, bake, baked) and the peer, alternating who goes first. */
export async function bakedFigures(env: BenchEnv, log: (line: string) => void, rounds = 2): Promise<BakedFigures> {
  const image = bareImage();
  const repo = `${image.path}.repo`;
  if (!existsSync(repo)) throw new Error(`${repo} is missing: guest-image.sh --bare keeps the mirror beside the image`);
  const baked = bakedVolumeName(image.sha256, proxyRecipe());
  const pool = env.EGRESS_TEST_POOL;
  const before = { domains: domains(), volumes: volumes(pool) };
  if (before.volumes.includes(baked)) throw new Error(`${baked} is already in ${pool} (left by an earlier run?): the first launch would not be unbaked; remove it with virsh vol-delete --pool ${pool} ${baked}`);
  const dir = mkdtempSync(join(tmpdir(), 'egress-bench-j-'));
  const h: Home = { dir, mirrorConfig: join(dir, 'mirror.yaml'), plainConfig: join(dir, 'config.yaml'), env: guestCliEnv(env, dir) };
  const mirrorUrl = `http://${env.EGRESS_TEST_BRIDGE_IP}:${MIRROR_PORT}/`;
  writeFileSync(h.mirrorConfig, guestConfig(env, image, siteMirrorVendorData(mirrorUrl)));
  // No mirror: nothing to install and no apt source to reach.
  writeFileSync(h.plainConfig, guestConfig(env, image));
  const mirror = namespaceHttpServer(env, MIRROR_PORT, repo);
  const page = namespaceHttpServer(env, PAGE_PORT);
  const all: BakedRound[] = [];
  try {
    oursDelete(h);
    peerCleanup(env);
    // The peer's copy of the image in the pool, made once like a downloaded cloud image.
    copyFileSync(image.path, join(env.EGRESS_TEST_POOL_DIR, PEER_BASE));
    virsh('pool-refresh', pool);
    for (let i = 0; i < rounds; i++) {
      const oursFirst = i % 2 === 0;
      log(`(j) round ${i + 1}: ${oursFirst ? 'ours, then by hand' : 'by hand, then ours'}`);
      let ours: Pick<BakedRound, 'firstMs' | 'bakeMs' | 'bakedMs'> | undefined;
      if (oursFirst) ours = await oursRound(env, h, baked, mirror, log);
      const peer = await peerRound(env, mirrorUrl, mirror, log);
      if (!oursFirst) ours = await oursRound(env, h, baked, mirror, log);
      all.push({ ...ours!, ...peer, oursFirst });
    }
  } finally {
    mirror.child.kill();
    page.child.kill();
    oursDelete(h);
    peerCleanup(env);
    virshQuiet('vol-delete', '--pool', pool, PEER_BASE);
    if (volumes(pool).includes(baked)) virshQuiet('vol-delete', '--pool', pool, baked);
    // The base volume the first launch uploaded, when it was not there before the bench.
    const base = baseVolumeName(image.sha256, 'qcow2');
    if (!before.volumes.includes(base)) virshQuiet('vol-delete', '--pool', pool, base);
    rmSync(dir, { recursive: true, force: true });
  }
  const after = { domains: domains(), volumes: volumes(pool) };
  const leftovers = [...after.domains.filter((d) => !before.domains.includes(d)).map((d) => `domain ${d}`), ...after.volumes.filter((v) => !before.volumes.includes(v)).map((v) => `volume ${v}`)];
  return { rounds: all, leftovers };
}
