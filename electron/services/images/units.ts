/** Byte sizes parsed from "20G"-style arguments (shared/bytes.ts prints them). */

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
