/** virsh on qemu:///system, for what a bench makes and removes by hand and for what it finds left over. */
import { spawnSync } from 'node:child_process';

/** Runs virsh; its output, or an error with what virsh said. */
export function virsh(...args: string[]): string {
  const r = spawnSync('virsh', ['-c', 'qemu:///system', ...args], { encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0) throw new Error(`virsh ${args.join(' ')}: ${(r.stderr || r.stdout).trim()}`);
  return r.stdout;
}

/** virsh without caring whether it worked: cleanup of what may not exist. */
export function virshQuiet(...args: string[]): void {
  spawnSync('virsh', ['-c', 'qemu:///system', ...args], { stdio: 'ignore', timeout: 120_000 });
}

/** Every domain's name, sorted. */
export function domains(): string[] {
  return virsh('list', '--all', '--name')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .sort();
}

/** The names of the pool's volumes, sorted (the pool refreshed first). */
export function volumes(pool: string): string[] {
  virshQuiet('pool-refresh', pool);
  // `vol-list` prints a table: a header, a rule, then "name path" rows (names have no spaces here).
  return virsh('vol-list', pool)
    .split('\n')
    .slice(2)
    .map((l) => l.trim().split(/\s+/)[0] ?? '')
    .filter(Boolean)
    .sort();
}
