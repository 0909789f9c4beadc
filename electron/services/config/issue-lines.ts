/**
 * The line of the config file a validation problem is about. Validation speaks in paths
 * (`kvm.hosts[1].name`, `kvm.images.ubuntu-24.04.sha256`); a person edits lines. The path is
 * walked through the parsed document: a map key may itself contain dots (an image named
 * `ubuntu-24.04`), so at each map the longest run of segments that names a key wins.
 */
import { LineCounter, type Node, isMap, isScalar, isSeq, parseDocument } from 'yaml';

/** Splits `a.b[2].c` into `['a', 'b', 2, 'c']`. */
function segments(path: string): Array<string | number> {
  const out: Array<string | number> = [];
  for (const part of path.split('.')) {
    const m = /^([^[]*)((?:\[\d+\])*)$/.exec(part);
    if (!m) {
      out.push(part);
      continue;
    }
    if (m[1] !== '') out.push(m[1]!);
    for (const i of m[2]!.matchAll(/\[(\d+)\]/g)) out.push(Number(i[1]));
  }
  return out;
}

/** The 1-based line of the deepest node of `path` the text has (the nearest existing parent for a missing field), or undefined. */
export function lineOfPath(text: string, path: string): number | undefined {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter });
  if (doc.errors.length) return undefined;
  let node: unknown = doc.contents;
  let at: number | undefined = (doc.contents as Node | null)?.range?.[0];
  const parts = segments(path);
  for (let i = 0; i < parts.length;) {
    const part = parts[i]!;
    if (typeof part === 'number' && isSeq(node)) {
      const item = node.items[part];
      if (item === undefined) break;
      node = item;
      at = (item as Node).range?.[0] ?? at;
      i += 1;
      continue;
    }
    if (!isMap(node)) break;
    // The longest run of segments, joined with dots, that is a key of this map.
    let matched = 0;
    let value: unknown;
    let keyAt: number | undefined;
    for (let j = parts.length; j > i; j--) {
      const name = parts.slice(i, j).join('.');
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === name);
      if (pair) {
        matched = j - i;
        value = pair.value;
        keyAt = isScalar(pair.key) ? pair.key.range?.[0] : undefined;
        break;
      }
    }
    if (!matched) break;
    at = keyAt ?? at;
    node = value;
    i += matched;
  }
  return at === undefined ? undefined : lineCounter.linePos(at).line;
}
