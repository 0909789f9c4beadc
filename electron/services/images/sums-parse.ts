/**
 * Lines of the checksum files publishers put beside their images, in every form met in
 * practice: GNU coreutils (`<hex>  <name>`, Ubuntu's `<hex> *<name>`), BSD tags
 * (`SHA256 (<name>) = <hex>`, Fedora's and Rocky's `*CHECKSUM` files), and a bare digest
 * alone on its line (a per-file `.sha256`). SHA-256 and SHA-512 are read; everything else
 * (comments, PGP armour of a clearsigned file, other algorithms) is skipped.
 */

/** The digest algorithms a publisher's file may list. */
export type DigestAlgorithm = 'sha256' | 'sha512';

/** One line of a checksum file. `name` is empty for a bare digest. */
export interface SumsEntry {
  algorithm: DigestAlgorithm;
  /** Lowercase hexadecimal. */
  digest: string;
  name: string;
}

const HEX_LENGTH: Record<DigestAlgorithm, number> = { sha256: 64, sha512: 128 };

function algorithmOf(hex: string): DigestAlgorithm | undefined {
  if (hex.length === HEX_LENGTH.sha256) return 'sha256';
  if (hex.length === HEX_LENGTH.sha512) return 'sha512';
  return undefined;
}

/** Parses a checksum file's text; names lose a leading "./". */
export function parseSums(text: string): SumsEntry[] {
  const out: SumsEntry[] = [];
  for (const raw of text.split(/\r?\n/)) {
    let line = raw.trim();
    let escaped = false;
    // GNU coreutils prefixes a line with "\" when the name holds a backslash or newline.
    if (line.startsWith('\\')) {
      escaped = true;
      line = line.slice(1);
    }
    let entry: SumsEntry | undefined;
    const gnu = /^([0-9A-Fa-f]+) [ *](.+)$/.exec(line);
    const bsd = /^(SHA256|SHA512) ?\((.+)\) ?= ?([0-9A-Fa-f]+)$/.exec(line);
    const bare = /^([0-9A-Fa-f]+)$/.exec(line);
    if (gnu) {
      const algorithm = algorithmOf(gnu[1]!);
      if (algorithm) entry = { algorithm, digest: gnu[1]!, name: gnu[2]! };
    } else if (bsd) {
      const algorithm = bsd[1] === 'SHA256' ? 'sha256' : 'sha512';
      if (algorithmOf(bsd[3]!) === algorithm) entry = { algorithm, digest: bsd[3]!, name: bsd[2]! };
    } else if (bare) {
      const algorithm = algorithmOf(bare[1]!);
      if (algorithm) entry = { algorithm, digest: bare[1]!, name: '' };
    }
    if (!entry) continue;
    let name = entry.name;
    if (escaped) name = name.replace(/\\(\\|n)/g, (_m, c: string) => (c === 'n' ? '\n' : '\\'));
    out.push({ algorithm: entry.algorithm, digest: entry.digest.toLowerCase(), name: name.replace(/^\.\//, '') });
  }
  return out;
}
