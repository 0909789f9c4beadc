/**
 * (c) A 1 GiB upload into a pool over SSH to 127.0.0.1: ours (ssh2 streamlocal forward
 * + our stream code) against `virsh -c qemu+ssh://…` (OpenSSH + libvirt's C client), and
 * both against a plain `cp` into the pool directory, which is the disk's own limit.
 */
import { createReadStream, existsSync, mkdirSync, rmSync, statSync, writeFileSync, copyFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { LibvirtClient } from '../electron/libvirt/index.js';
import { ClientApi } from '../electron/services/provider/kvm/client-api.js';
import { SshConnectionPool, SshDialer } from '../electron/transport/index.js';
import type { BenchEnv } from './environment.js';
import { cpSeconds, run, virshUploadSeconds } from './peers.js';

const GIB = 1024 ** 3;

/** A 1 GiB file of incompressible bytes, made once and reused across runs. */
export function uploadFixture(dir: string, bytes = GIB): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `upload-${bytes}.bin`);
  if (existsSync(file) && statSync(file).size === bytes) return file;
  const block = randomBytes(16 * 1024 * 1024);
  writeFileSync(file, '');
  for (let done = 0; done < bytes; done += block.length)
    writeFileSync(file, block.subarray(0, Math.min(block.length, bytes - done)), { flag: 'a' });
  return file;
}

/**
 * A throwaway HOME whose ssh config trusts the test sshd's key and uses the test key: for
 * ours, and (through a wrapper passed as libvirt's `command`, since OpenSSH reads the
 * passwd home, not $HOME) for virsh's OpenSSH.
 */
function sshHome(env: BenchEnv, dir: string): string {
  const home = join(dir, 'home');
  mkdirSync(join(home, '.ssh'), { recursive: true, mode: 0o700 });
  copyFileSync(env.EGRESS_TEST_KNOWN_HOSTS, join(home, '.ssh', 'known_hosts'));
  writeFileSync(
    join(home, '.ssh', 'config'),
    `Host 127.0.0.1\n  Port ${env.EGRESS_TEST_SSH_PORT}\n  User root\n  IdentityFile ${env.EGRESS_TEST_SSH_KEY}\n  StrictHostKeyChecking yes\n  UserKnownHostsFile ${join(home, '.ssh', 'known_hosts')}\n`,
    { mode: 0o600 },
  );
  writeFileSync(join(home, 'ssh'), `#!/bin/sh\nexec ssh -F ${join(home, '.ssh', 'config')} "$@"\n`, { mode: 0o755 });
  return home;
}

export interface UploadFigures {
  oursSeconds: number;
  virshSeconds: number;
  cpSeconds: number;
  bytes: number;
  peakRssBytes: number;
}

export async function uploadFigures(env: BenchEnv, workDir: string, bytes = GIB): Promise<UploadFigures> {
  const file = uploadFixture(workDir, bytes);
  const home = sshHome(env, workDir);
  const pool = new SshConnectionPool({ homeDir: home, env: { HOME: home }, systemConfigPath: null });
  const client = await LibvirtClient.connect(
    new SshDialer({ address: '127.0.0.1', socketPath: env.EGRESS_TEST_SOCKET }, pool),
    { uri: 'qemu:///system' },
  );
  const volumes = new ClientApi(client);
  const ours = 'egtest-bench-ours.raw';
  const theirs = 'egtest-bench-virsh.raw';
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);
  try {
    await volumes.deleteVolume(env.EGRESS_TEST_POOL, ours);
    const poolRef = await client.call('STORAGE_POOL_LOOKUP_BY_NAME', { name: env.EGRESS_TEST_POOL });
    const xml = `<volume><name>${ours}</name><capacity unit="bytes">${bytes}</capacity><target><format type="raw"/></target></volume>`;
    const vol = await client.call('STORAGE_VOL_CREATE_XML', { pool: poolRef, xml, flags: 0 });
    const t = performance.now();
    await client.uploadVolume(vol, createReadStream(file, { highWaterMark: 1024 * 1024 }), { total: bytes });
    const oursSeconds = (performance.now() - t) / 1000;
    clearInterval(sampler);
    await volumes.deleteVolume(env.EGRESS_TEST_POOL, ours);

    const uri = `qemu+ssh://root@127.0.0.1:${env.EGRESS_TEST_SSH_PORT}/system?command=${encodeURIComponent(join(home, 'ssh'))}&no_tty=1`;
    const sshEnv = { ...process.env, HOME: home };
    run('virsh', ['-c', uri, 'vol-create-as', env.EGRESS_TEST_POOL, theirs, String(bytes), '--format', 'raw'], sshEnv);
    let virshSeconds: number;
    try {
      virshSeconds = virshUploadSeconds(uri, env.EGRESS_TEST_POOL, theirs, file, sshEnv);
    } finally {
      await volumes.deleteVolume(env.EGRESS_TEST_POOL, theirs);
    }

    const target = join(env.EGRESS_TEST_POOL_DIR, 'egtest-bench-cp.raw');
    let cp: number;
    try {
      cp = cpSeconds(file, target);
    } finally {
      rmSync(target, { force: true });
    }
    return { oursSeconds, virshSeconds, cpSeconds: cp, bytes, peakRssBytes: peakRss };
  } finally {
    clearInterval(sampler);
    await client.close();
    await pool.close();
  }
}
