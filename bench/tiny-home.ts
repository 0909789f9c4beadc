/**
 * A throwaway data directory whose config launches onto the test environment's local
 * libvirtd from a 16 MiB empty base image: for benchmarks (d) and (h), which measure the
 * app's own work, not a guest's boot.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchEnv } from './environment.js';

export interface TinyHome {
  /** HOME for the processes; the data directory is `data` inside it. */
  home: string;
  config: string;
  /** The base image's sha256 (its volume in the pool is `egress-base-<sha256>.qcow2`). */
  sha256: string;
}

export function tinyHome(env: BenchEnv, prefix: string): TinyHome {
  const home = mkdtempSync(join(tmpdir(), prefix));
  const image = join(home, 'tiny.qcow2');
  execFileSync('qemu-img', ['create', '-q', '-f', 'qcow2', image, '16M']);
  const sha256 = createHash('sha256').update(readFileSync(image)).digest('hex');
  const config = join(home, 'config.yaml');
  writeFileSync(
    config,
    `type: kvm\nkvm:\n  hosts:\n    - { name: local, address: local, pool: ${env.EGRESS_TEST_POOL}, network: egtest-net, domainType: qemu }\n  machineTypes:\n    tiny: { vcpus: 1, memoryMiB: 128, diskGiB: 1 }\n  images:\n    tiny: { url: "file://${image}", sha256: ${sha256} }\n  defaults: { machineType: tiny, image: tiny }\n`,
  );
  return { home, config, sha256 };
}
