/** Byte sizes for people: printed in binary units, parsed from "20G"-style arguments. */

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'] as const;

/** `1536` → "1.5 KiB"; bytes below 1 KiB are printed exactly. */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(1)} ${UNITS[unit]}`;
}

/**
 * Parses "20G", "1.5TiB", "512M", "100000" (bytes). K, M, G and T are powers of 1024
 * whichever spelling is used (K, KB, KiB): disk images are measured that way, and an
 * argument meaning 10⁹ for "G" would surprise a person pruning to fit a disk.
 * Returns undefined for anything else.
 */
export function parseSize(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(?:([kmgt])(?:i?b)?|b)?\s*$/i.exec(text);
  if (!m) return undefined;
  const power = m[2] ? 'kmgt'.indexOf(m[2].toLowerCase()) + 1 : 0;
  const bytes = Math.round(Number(m[1]) * 1024 ** power);
  return Number.isSafeInteger(bytes) ? bytes : undefined;
}
