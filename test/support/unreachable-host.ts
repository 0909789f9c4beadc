/**
 * The CLI on a config whose one host cannot be reached: for the usage tests of the `proxies`
 * commands, where any command that got as far as connecting would say so (its socket, a
 * path in the throwaway home, does not exist).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type CliResult, runCliProcess } from './cli.js';
import { tempDir } from './temp-dir.js';

/**
 * Writes `config.yaml` in `home`: the host `local` on a socket that does not exist, a machine
 * type `small` and an image `img` (a file that does not exist either), both the defaults.
 * Returns the file's path.
 */
export function writeUnreachableHostConfig(home: string): string {
  const config = join(home, 'config.yaml');
  writeFileSync(
    config,
    `type: kvm\nkvm:\n  hosts:\n    - { name: local, address: local, socketPath: ${join(home, 'no-such-socket')} }\n  machineTypes:\n    small: { vcpus: 1, memoryMiB: 512 }\n  images:\n    img: { url: "file:///nonexistent/img.qcow2", sha256: "${'0'.repeat(64)}" }\n  defaults: { machineType: small, image: img }\n`,
  );
  return config;
}

/**
 * Runs the built `egress-desk --config CONFIG proxies ARGS…` in a new throwaway home (its
 * name starting with `prefix`) whose config is {@link writeUnreachableHostConfig}'s, with the
 * data directory `data` inside it.
 */
export function proxiesOnUnreachableHost(prefix: string, ...args: string[]): Promise<CliResult> {
  const home = tempDir(prefix);
  const config = writeUnreachableHostConfig(home);
  return runCliProcess(['--config', config, 'proxies', ...args], { HOME: home, EGRESS_DESK_HOME: join(home, 'data') });
}
