/**
 * (j) the peer, the way it is done by hand: an overlay of the bare image in the test pool, a
 * NoCloud seed made with genisoimage (user-data installing tinyproxy from the site mirror, the
 * same port, allow list and kind of credentials as ours), `virt-install --import` on the same
 * network, then a loop over the network's DHCP leases and a port probe from inside the
 * namespace; timed from the virt-install call.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { stringify } from 'yaml';
import { buildTinyproxyConf } from '../electron/services/provider/kvm/guest/tinyproxy-conf.js';
import { LAUNCH_TIMEOUT_S, PORT, checkForwards } from './baked-check.js';
import type { BenchEnv } from './environment.js';
import { PORT_WATCH, type namespaceHttpServer, testNetworkCidr } from './guest-setup.js';
import { domains, virsh, virshQuiet, volumes } from './virsh.js';

const PEER = 'egtest-bench-j-peer';
/** The peer's copy of the bare image in the pool (its overlays' backing file). */
export const PEER_BASE = 'egtest-bench-j-bare.qcow2';
const PEER_SEED = `${PEER}-seed.iso`;

/** The peer in one round, ms. */
export interface PeerTimes {
  /** by hand: virt-install call to the port accepting, ms. */
  peerMs: number;
  /** Of peerMs: the virt-install process itself (volume, define, start). */
  peerVirtInstallMs: number;
  /** Of peerMs: until the lease showed an address. */
  peerLeaseMs: number;
  /** Writing the seed's files and genisoimage, before the peer's clock starts. */
  peerSeedMs: number;
}

function randomMac(): string {
  const b = randomBytes(3);
  return `52:54:00:${[...b].map((x) => x.toString(16).padStart(2, '0')).join(':')}`;
}

/** Removes the peer's domain and its volumes, whichever are there. */
export function peerCleanup(env: BenchEnv): void {
  if (domains().includes(PEER)) {
    virshQuiet('destroy', PEER);
    virshQuiet('undefine', PEER, '--nvram');
    virshQuiet('undefine', PEER);
  }
  for (const v of volumes(env.EGRESS_TEST_POOL))
    if (v.startsWith(PEER)) virshQuiet('vol-delete', '--pool', env.EGRESS_TEST_POOL, v);
}

/** By hand: seed with genisoimage, virt-install --import, leases, port probe. */
export async function peerRound(
  env: BenchEnv,
  mirrorUrl: string,
  mirror: ReturnType<typeof namespaceHttpServer>,
  log: (line: string) => void,
): Promise<PeerTimes> {
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
      write_files: [
        {
          path: '/etc/tinyproxy/tinyproxy.conf',
          content: buildTinyproxyConf({ port: PORT, allow: [allow], credentials: { username: 'egress', password } }),
        },
      ],
      runcmd: [['systemctl', 'restart', 'tinyproxy']],
    };
    writeFileSync(join(seedDir, 'user-data'), `#cloud-config\n${stringify(userData, { lineWidth: 0 })}`);
    writeFileSync(
      join(seedDir, 'meta-data'),
      stringify({ 'instance-id': `${PEER}-${randomBytes(4).toString('hex')}`, 'local-hostname': PEER }),
    );
    const iso = spawnSync(
      'genisoimage',
      [
        '-quiet',
        '-output',
        seedPath,
        '-volid',
        'cidata',
        '-joliet',
        '-rock',
        join(seedDir, 'user-data'),
        join(seedDir, 'meta-data'),
      ],
      { encoding: 'utf8' },
    );
    if (iso.status !== 0) throw new Error(`genisoimage: ${iso.stderr.trim()}`);
    const peerSeedMs = Date.now() - s0;

    const before = mirror.requests().length;
    const t0 = Date.now();
    const vi = spawnSync(
      'virt-install',
      [
        '--connect',
        'qemu:///system',
        '--name',
        PEER,
        '--virt-type',
        'qemu',
        '--machine',
        'q35',
        '--memory',
        '512',
        '--vcpus',
        '1',
        '--osinfo',
        'detect=on,require=off',
        '--import',
        '--disk',
        `pool=${env.EGRESS_TEST_POOL},size=4,format=qcow2,backing_store=${join(env.EGRESS_TEST_POOL_DIR, PEER_BASE)},backing_format=qcow2,bus=virtio`,
        '--controller',
        'type=scsi,model=virtio-scsi',
        '--disk',
        `path=${seedPath},device=cdrom,bus=scsi`,
        '--network',
        `network=${env.EGRESS_TEST_NETWORK},model=virtio,mac=${mac}`,
        '--rng',
        '/dev/urandom',
        '--graphics',
        'none',
        '--noautoconsole',
      ],
      { encoding: 'utf8', timeout: 300_000 },
    );
    const peerVirtInstallMs = Date.now() - t0;
    if (vi.status !== 0)
      throw new Error(
        `virt-install failed (exit ${vi.status}): ${(vi.stderr || vi.stdout).trim().split('\n').slice(-3).join(' | ')}`,
      );

    let address: string | undefined;
    while (!address) {
      if (Date.now() - t0 > LAUNCH_TIMEOUT_S * 1000)
        throw new Error(`no DHCP lease for ${mac} within ${LAUNCH_TIMEOUT_S} s`);
      address = /(\d+\.\d+\.\d+\.\d+)\/\d+/.exec(virsh('net-dhcp-leases', env.EGRESS_TEST_NETWORK, '--mac', mac))?.[1];
      if (!address) await sleep(200);
    }
    const peerLeaseMs = Date.now() - t0;
    const remaining = LAUNCH_TIMEOUT_S * 1000 - (Date.now() - t0);
    const w = spawnSync(
      'ip',
      [
        'netns',
        'exec',
        env.EGRESS_TEST_NETNS,
        process.execPath,
        PORT_WATCH,
        address,
        String(PORT),
        String(Math.max(remaining, 1000)),
      ],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: remaining + 10_000 },
    );
    if (w.status !== 0)
      throw new Error(`the peer's port ${address}:${PORT} did not open (port-watch exit ${w.status})`);
    const seen = JSON.parse(w.stdout) as { openAt: number };
    const peerMs = seen.openAt - t0;
    await sleep(1000); // the mirror's log lines, read while the synchronous spawns blocked the loop
    if (!/tinyproxy_[^ ]+\.deb/.test(mirror.requests().slice(before).join('\n')))
      throw new Error('the peer did not fetch tinyproxy from the mirror');
    checkForwards(env, `http://egress:${password}@${address}:${PORT}`, 'peer');
    log(
      `(j)   by hand (virt-install): ${(peerMs / 1000).toFixed(1)} s to the port answering (virt-install ${(peerVirtInstallMs / 1000).toFixed(1)} s, lease at ${(peerLeaseMs / 1000).toFixed(1)} s; seed ${peerSeedMs} ms before)`,
    );
    return { peerMs, peerVirtInstallMs, peerLeaseMs, peerSeedMs };
  } finally {
    rmSync(seedDir, { recursive: true, force: true });
    peerCleanup(env);
  }
}
