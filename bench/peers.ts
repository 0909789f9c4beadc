/** The peers the figures are compared with: libvirt's own C client (python3-libvirt), virsh, cp. */
import { spawnSync } from 'node:child_process';

/** Debian's python3 (the one python3-libvirt is installed for), not whatever is first on PATH. */
export const SYSTEM_PYTHON = '/usr/bin/python3';

function run(cmd: string, args: string[], env?: NodeJS.ProcessEnv): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8', env: env ?? process.env, maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw new Error(`${cmd}: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr.trim()}`);
  return r.stdout;
}

/** Calls per second of `count` sequential getLibVersion() through python3-libvirt. */
export function pythonLibVersionRate(count: number): number {
  const script = `
import libvirt, time, sys
c = libvirt.open('qemu:///system')
c.getLibVersion()
t = time.perf_counter()
for _ in range(${count}): c.getLibVersion()
print(${count} / (time.perf_counter() - t))
c.close()
`;
  return Number(run(SYSTEM_PYTHON, ['-c', script]).trim());
}

/** Seconds for `virsh vol-upload` of `file` into `pool` as `volume`, through `uri`. */
export function virshUploadSeconds(
  uri: string,
  pool: string,
  volume: string,
  file: string,
  env?: NodeJS.ProcessEnv,
): number {
  const t = performance.now();
  run('virsh', ['-c', uri, 'vol-upload', '--pool', pool, volume, file], env);
  return (performance.now() - t) / 1000;
}

/** Seconds for a plain `cp` of `file` to `target`, flushed: the disk's own limit. */
export function cpSeconds(file: string, target: string): number {
  const t = performance.now();
  run('cp', [file, target]);
  run('sync', ['-f', target]);
  return (performance.now() - t) / 1000;
}

export { run };
