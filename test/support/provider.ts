/** What the provider lanes share: a throwaway home, a config for it, and the pool/domain state to compare. */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chownSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type LibvirtClient, listAllDomains, listAllVolumes } from '../../electron/libvirt/index.js';
import { testPool } from './libvirt.js';
import { type RunAs, runCliProcess } from './cli.js';
import type { TestEnv } from './env.js';
import { tempDir } from './temp-dir.js';

/** The test pool's volumes and every domain, sorted: "nothing left behind" compares two of these. */
export async function hypervisorState(client: LibvirtClient): Promise<{ volumes: string[]; domains: string[] }> {
  const pool = await testPool(client);
  await client.call('STORAGE_POOL_REFRESH', { pool, flags: 0 });
  return {
    volumes: (await listAllVolumes(client, pool)).map((v) => v.name).sort(),
    domains: (await listAllDomains(client)).map((d) => d.name).sort(),
  };
}

/**
 * A 16 MiB empty qcow2 and its digest: a base image that needs no guest to be useful. Every
 * such image has the same digest, so its base volume may be in the pool already; another
 * `sizeKiB` gives another digest (a test that must see the upload happen).
 */
export function tinyImage(dir: string, sizeKiB = 16 * 1024): { path: string; sha256: string } {
  const path = join(dir, 'tiny.qcow2');
  execFileSync('qemu-img', ['create', '-q', '-f', 'qcow2', path, `${sizeKiB}K`]);
  return { path, sha256: createHash('sha256').update(readFileSync(path)).digest('hex') };
}

export interface ProviderHome {
  home: string;
  config: string;
  /** Runs `egress-desk --config CONFIG proxies ARGS` with this home as HOME and data dir parent. */
  proxies: (...args: string[]) => ReturnType<typeof runCliProcess>;
}

/**
 * A temp home with a config of one host line (YAML flow map), one machine type and one
 * image (at `url`, else its file:// URL); `extra` lines are appended under `kvm:`. With `as`, the CLI runs as that user (the
 * config is handed to it; `home` must be theirs already, see users.ts).
 */
export function providerHome(
  prefix: string,
  o: {
    host: string;
    machineType: string;
    image: { name: string; path: string; sha256: string; url?: string };
    extra?: string[];
    env?: Record<string, string>;
    home?: string;
    as?: RunAs;
  },
): ProviderHome {
  const home = o.home ?? tempDir(prefix);
  const config = join(home, 'config.yaml');
  writeFileSync(
    config,
    [
      'type: kvm',
      'kvm:',
      '  hosts:',
      `    - ${o.host}`,
      '  machineTypes:',
      `    ${o.machineType}`,
      '  images:',
      `    ${o.image.name}: { url: "${o.image.url ?? `file://${o.image.path}`}", sha256: ${o.image.sha256} }`,
      `  defaults: { machineType: ${o.machineType.split(':')[0]}, image: ${o.image.name} }`,
      ...(o.extra ?? []),
      '',
    ].join('\n'),
  );
  if (o.as) chownSync(config, o.as.uid, o.as.gid);
  return {
    home,
    config,
    proxies: (...args) =>
      runCliProcess(
        ['--config', config, 'proxies', ...args],
        { HOME: home, EGRESS_DESK_HOME: join(home, 'data'), ...o.env },
        undefined,
        o.as,
      ),
  };
}

/** The test hypervisor's own entry: this machine's socket, the test pool and network, TCG. */
export function localTestHost(env: TestEnv): string {
  return `{ name: local, address: local, pool: ${env.EGRESS_TEST_POOL}, network: ${env.EGRESS_TEST_NETWORK}, domainType: qemu }`;
}

/** The smallest machine type a test proxy boots with. */
export const TINY_MACHINE_TYPE = 'tiny: { vcpus: 1, memoryMiB: 128, diskGiB: 1 }';

/** {@link providerHome} in `home` with the test hypervisor's own entry, the tiny machine type and `image`. */
export function localProviderHome(
  env: TestEnv,
  prefix: string,
  home: string,
  image: { name: string; path: string; sha256: string },
): ProviderHome {
  return providerHome(prefix, { home, host: localTestHost(env), machineType: TINY_MACHINE_TYPE, image });
}

/**
 * A fresh temp home (named by `prefix`) for the CLI against the local test host, with the
 * tiny image as `tiny`: what most libvirt-lane files start from. `sha256` names the base
 * volume the first launch uploads (`baseVolumeName(sha256, 'qcow2')`), for cleanup.
 */
export function tinyProviderHome(env: TestEnv, prefix: string): ProviderHome & { sha256: string } {
  const home = tempDir(prefix);
  const image = tinyImage(home);
  return { ...localProviderHome(env, prefix, home, { name: 'tiny', ...image }), sha256: image.sha256 };
}

/**
 * An in-process backend's home with two entries on the test hypervisor: `local` (the
 * socket) and `loop` (the test sshd), both on the test pool, one tiny machine type and
 * `image`. HOME becomes `home` (the SSH entry reads ~/.ssh/known_hosts) until the returned
 * function restores it. Returns the config file's path.
 */
export function localAndSshHome(
  env: TestEnv,
  home: string,
  image: { name: string; path: string; sha256: string },
): { configFile: string; restoreHome: () => void } {
  const saved = process.env.HOME;
  mkdirSync(join(home, '.ssh'), { recursive: true, mode: 0o700 });
  copyFileSync(env.EGRESS_TEST_KNOWN_HOSTS, join(home, '.ssh', 'known_hosts'));
  process.env.HOME = home;
  const configFile = join(home, 'local-and-ssh.yaml');
  writeFileSync(
    configFile,
    [
      'type: kvm',
      'kvm:',
      '  hosts:',
      `    - ${localTestHost(env)}`,
      `    - { name: loop, address: 127.0.0.1, sshPort: ${env.EGRESS_TEST_SSH_PORT}, sshUser: root, identityFile: ${env.EGRESS_TEST_SSH_KEY}, pool: ${env.EGRESS_TEST_POOL}, network: ${env.EGRESS_TEST_NETWORK}, domainType: qemu }`,
      '  machineTypes:',
      '    tiny: { vcpus: 1, memoryMiB: 128, diskGiB: 1 }',
      '  images:',
      `    ${image.name}: { url: "file://${image.path}", sha256: ${image.sha256} }`,
      `  defaults: { machineType: tiny, image: ${image.name} }`,
      '',
    ].join('\n'),
  );
  const restoreHome = (): void => {
    if (saved === undefined) Reflect.deleteProperty(process.env, 'HOME');
    else process.env.HOME = saved;
  };
  return { configFile, restoreHome };
}
