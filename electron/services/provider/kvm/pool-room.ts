/**
 * How a pool's room is said: placement refuses a host with it, and the base-image upload
 * refuses a full pool with it, so both say the same thing the same way.
 */

/** `47.9 MiB` below a GiB, `1.0 GiB` from one up. */
export function gib(bytes: number): string {
  if (bytes < 1024 ** 3) return `${Math.round(bytes / 1024 ** 2)} MiB`;
  return `${(bytes / 1024 ** 3).toFixed(1)} GiB`;
}

/**
 * `pool P has 47.9 MiB (50229248 bytes) free, the disk needs 1.0 GiB (1073741824 bytes)`: the
 * exact byte counts beside the rounded ones, so that a person can compare them with `virsh
 * pool-info` without guessing at the rounding.
 */
export function noRoom(pool: string, freeBytes: number, neededBytes: number, needs: string): string {
  return `pool ${pool} has ${gib(freeBytes)} (${freeBytes} bytes) free, ${needs} ${gib(neededBytes)} (${neededBytes} bytes)`;
}
