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
 *
 * This file runs the rounds, with the mirror and the page, and cleans up; the two ways are
 * baked-ours.ts and baked-peer.ts, held to the same port, time and check (baked-check.ts).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bakedVolumeName, proxyRecipe } from '../electron/services/provider/kvm/guest/bake-recipe.js';
import { baseVolumeName } from '../electron/services/provider/kvm/names.js';
import { PAGE_PORT } from './baked-check.js';
import { type Home, type OursTimes, oursDelete, oursRound } from './baked-ours.js';
import { PEER_BASE, type PeerTimes, peerCleanup, peerRound } from './baked-peer.js';
import type { BenchEnv } from './environment.js';
import { guestCliEnv, guestConfig, namespaceHttpServer, siteMirrorVendorData } from './guest-setup.js';
import { domains, virsh, virshQuiet, volumes } from './virsh.js';

const MIRROR_PORT = 18091;

/** One round's figures: ours (baked-ours.ts) and the peer's (baked-peer.ts). */
export interface BakedRound extends OursTimes, PeerTimes {
  /** ours went first in this round. */
  oursFirst: boolean;
}

export interface BakedFigures {
  rounds: BakedRound[];
  /** Domains or volumes still there after the cleanup (must be empty). */
  leftovers: string[];
}

function bareImage(): { path: string; sha256: string } {
  const r = spawnSync('bash', ['test/env/guest-image.sh', '--bare'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: 20 * 60_000,
  });
  if (r.status !== 0) throw new Error(`test/env/guest-image.sh --bare failed (exit ${r.status})`);
  const path = r.stdout.trim().split('\n').pop()!;
  return { path, sha256: spawnSync('sha256sum', [path], { encoding: 'utf8' }).stdout.split(' ')[0]! };
}

/** `rounds` rounds of ours (first, bake, baked) and the peer, alternating who goes first. */
export async function bakedFigures(env: BenchEnv, log: (line: string) => void, rounds = 2): Promise<BakedFigures> {
  const image = bareImage();
  const repo = `${image.path}.repo`;
  if (!existsSync(repo)) throw new Error(`${repo} is missing: guest-image.sh --bare keeps the mirror beside the image`);
  const baked = bakedVolumeName(image.sha256, proxyRecipe());
  const pool = env.EGRESS_TEST_POOL;
  const before = { domains: domains(), volumes: volumes(pool) };
  if (before.volumes.includes(baked))
    throw new Error(
      `${baked} is already in ${pool} (left by an earlier run?): the first launch would not be unbaked; remove it with virsh vol-delete --pool ${pool} ${baked}`,
    );
  const dir = mkdtempSync(join(tmpdir(), 'egress-bench-j-'));
  const h: Home = {
    dir,
    mirrorConfig: join(dir, 'mirror.yaml'),
    plainConfig: join(dir, 'config.yaml'),
    env: guestCliEnv(env, dir),
  };
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
      let ours: OursTimes | undefined;
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
  const leftovers = [
    ...after.domains.filter((d) => !before.domains.includes(d)).map((d) => `domain ${d}`),
    ...after.volumes.filter((v) => !before.volumes.includes(v)).map((v) => `volume ${v}`),
  ];
  return { rounds: all, leftovers };
}
