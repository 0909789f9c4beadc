/** Byte counts for people: one rounding everywhere, so a size reads the same in the CLI, the app and an error message. */

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'] as const;

/**
 * Binary units with one decimal (`1536` → "1.5 KiB", `5 * 1024 ** 3` → "5.0 GiB"); below
 * 1 KiB the count is exact ("1023 B"). Binary because disks, pools and images are sized so.
 */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  // Rates are fractions: bytes are whole in the text either way.
  return unit === 0 ? `${Math.round(bytes)} B` : `${value.toFixed(1)} ${UNITS[unit]}`;
}

/** A rate for people: bytes a second, rounded to whole bytes, in the same units ("1.5 KiB/s"). */
export function formatRate(bytesPerSecond: number): string {
  return `${formatBytes(Math.round(bytesPerSecond))}/s`;
}
