/**
 * In-app edits change the config file in place: the YAML document is parsed with its
 * comments and layout, and only the nodes whose values differ are replaced, added or
 * removed. A person's hand-written comments and ordering survive a "Make default" or an
 * added host; what was changed is written in the yaml library's default style.
 */
import { type Document, isMap, isScalar, isSeq, parseDocument } from 'yaml';

type Plain = Record<string, unknown>;
const isPlain = (v: unknown): v is Plain => typeof v === 'object' && v !== null && !Array.isArray(v);

function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => same(x, b[i]));
  if (isPlain(a) && isPlain(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && same(a[k], b[k]));
  }
  return false;
}

function apply(doc: Document, path: Array<string | number>, before: unknown, after: unknown): void {
  if (same(before, after)) return;
  if (isPlain(before) && isPlain(after)) {
    for (const key of Object.keys(before)) if (!Object.hasOwn(after, key)) doc.deleteIn([...path, key]);
    for (const [key, value] of Object.entries(after)) {
      if (Object.hasOwn(before, key)) apply(doc, [...path, key], before[key], value);
      else doc.setIn([...path, key], doc.createNode(value));
    }
    // Entries in the new order (a renamed entry keeps its place); each pair keeps its comments.
    const node = path.length ? doc.getIn(path, true) : doc.contents;
    if (isMap(node)) {
      const order = Object.keys(after);
      const keyOf = (pair: { key: unknown }) => String(isScalar(pair.key) ? pair.key.value : pair.key);
      node.items.sort((a, b) => order.indexOf(keyOf(a)) - order.indexOf(keyOf(b)));
    }
    return;
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    if (named(before) && named(after) && updateNamedList(doc, path, before, after)) return;
    if (before.length === after.length) {
      after.forEach((value, i) => apply(doc, [...path, i], before[i], value));
      return;
    }
  }
  doc.setIn(path, doc.createNode(after));
}

type Named = Plain & { name: string };
const named = (items: unknown[]): items is Named[] => items.every((x) => isPlain(x) && typeof x.name === 'string');

/**
 * A list of named entries (the hosts): entries are matched by name, so removing one keeps
 * the others' comments; a new one is added, and the list takes the new order.
 */
function updateNamedList(doc: Document, path: Array<string | number>, before: Named[], after: Named[]): boolean {
  const seq = doc.getIn(path, true);
  if (!isSeq(seq) || seq.items.length !== before.length) return false;
  const wanted = new Set(after.map((a) => a.name));
  for (let i = before.length - 1; i >= 0; i--) if (!wanted.has(before[i]!.name)) seq.items.splice(i, 1);
  const kept = before.filter((b) => wanted.has(b.name));
  kept.forEach((b, i) =>
    apply(
      doc,
      [...path, i],
      b,
      after.find((a) => a.name === b.name),
    ),
  );
  for (const a of after) if (!kept.some((b) => b.name === a.name)) seq.items.push(doc.createNode(a));
  const order = after.map((a) => a.name);
  const nameOf = (node: unknown) => (isMap(node) ? String(node.get('name')) : '');
  seq.items.sort((x, y) => order.indexOf(nameOf(x)) - order.indexOf(nameOf(y)));
  return true;
}

/**
 * `text` rewritten to hold `next`, touching only what differs; undefined when `text` is
 * not a clean YAML mapping (then the caller writes the file afresh).
 */
export function updateYamlText(text: string, next: unknown): string | undefined {
  const doc = parseDocument(text);
  if (doc.errors.length > 0 || !isMap(doc.contents)) return undefined;
  apply(doc, [], doc.toJS() as unknown, next);
  return doc.toString({ lineWidth: 0, indent: 2 });
}
