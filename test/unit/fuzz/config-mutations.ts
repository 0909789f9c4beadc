/**
 * The mutations of the config fuzz (config-files.test.ts): edits to a config's text (lines
 * deleted, duplicated, swapped, re-indented, inserted; values replaced with edge values and
 * long runs; characters inserted; truncated) and to its parsed tree (wrong types, missing,
 * unknown and renamed keys, duplicated entries), each an arbitrary and the function that
 * applies it. The checks of what the app makes of the result stay in the test.
 */
import fc from 'fast-check';

/** Values to put where a scalar was: the types, edges and sizes configs meet. */
const scalar = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      '',
      '~',
      'null',
      'true',
      'no',
      'yes',
      '0',
      '-1',
      '0x1F',
      '1e400',
      '.inf',
      '-.nan',
      '65536',
      '3.5',
      '"quoted"',
      "'single'",
      '[]',
      '{}',
      '- x',
      '|',
      '>',
      '&anchor x',
      '*anchor',
      '!!binary AAAA',
      '!!str 1',
      '!!int "x"',
    ),
  },
  { weight: 3, arbitrary: fc.string({ maxLength: 20 }) },
  { weight: 1, arbitrary: fc.integer().map(String) },
  { weight: 1, arbitrary: fc.double().map(String) },
  // Long runs of a few characters: where a pattern that backtracks shows itself.
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.constantFrom(':', 'a', '0', '.', '-', 'a.', ':0', '%', ' '),
        fc.integer({ min: 1_000, max: 20_000 }),
        fc.constantFrom('', '!', ':', '%', '\u00e9'),
      )
      .map(([unit, n, tail]) => `"${unit.repeat(n)}${tail}"`),
  },
);

/** Lines a person (or a bad merge) might leave in a YAML file. */
const snippet = fc.oneof(
  fc.constantFrom(
    '---',
    '...',
    '%YAML 1.2',
    '%TAG ! tag:x,2000:',
    '? complex key',
    ': value',
    '- item',
    '  - nested',
    '<<: *a',
    'a: &a {x: 1}',
    'b: *a',
    'c: *missing',
    'hosts: []',
    'kvm:',
    'type: kvm',
    'type: gcp',
    'gcp: {}',
    '\t- tab',
    '"unterminated',
    "'unterminated",
    '{ broken',
    '[ broken',
    '# comment',
    'key: value # trailing',
    'dup: 1',
    'dup: 2',
    '\ufeff',
    '\r',
    'x: !!binary AAAA',
    'x: !custom y',
    'name: local',
    'address: local',
    'sshPort: 0',
    '  name: edge-a',
  ),
  fc.string({ maxLength: 30 }),
);

export type TextEdit =
  | { kind: 'delete-line' | 'duplicate-line'; line: number }
  | { kind: 'swap-lines'; line: number; other: number }
  | { kind: 'indent'; line: number; by: number; tab: boolean }
  | { kind: 'insert-line'; line: number; text: string }
  | { kind: 'replace-value'; line: number; value: string }
  | { kind: 'insert-chars'; at: number; text: string }
  | { kind: 'truncate'; at: number };

export const textEdit: fc.Arbitrary<TextEdit> = fc.oneof(
  fc.record({ kind: fc.constantFrom('delete-line' as const, 'duplicate-line' as const), line: fc.nat() }),
  fc.record({ kind: fc.constant('swap-lines' as const), line: fc.nat(), other: fc.nat() }),
  fc.record({
    kind: fc.constant('indent' as const),
    line: fc.nat(),
    by: fc.integer({ min: -4, max: 4 }),
    tab: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('insert-line' as const), line: fc.nat(), text: snippet }),
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('replace-value' as const), line: fc.nat(), value: scalar }) },
  fc.record({
    kind: fc.constant('insert-chars' as const),
    at: fc.nat(),
    text: fc.oneof(
      fc.constantFrom(
        ':',
        ' ',
        '\n',
        '-',
        '"',
        "'",
        '{',
        '}',
        '[',
        ']',
        ',',
        '#',
        '&',
        '*',
        '!',
        '|',
        '>',
        '\t',
        '\0',
        '%',
        '@',
        '`',
      ),
      fc.string({ maxLength: 8 }),
    ),
  }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
);

export function applyText(text: string, edits: readonly TextEdit[]): string {
  let lines = text.split('\n');
  for (const e of edits) {
    const n = lines.length;
    const i = n === 0 ? 0 : e.kind === 'insert-chars' || e.kind === 'truncate' ? 0 : e.line % n;
    switch (e.kind) {
      case 'delete-line':
        lines.splice(i, 1);
        break;
      case 'duplicate-line':
        lines.splice(i, 0, lines[i] ?? '');
        break;
      case 'swap-lines': {
        const j = n === 0 ? 0 : e.other % n;
        [lines[i], lines[j]] = [lines[j] ?? '', lines[i] ?? ''];
        break;
      }
      case 'indent': {
        const line = lines[i] ?? '';
        lines[i] =
          e.by >= 0 ? (e.tab ? '\t' : ' '.repeat(e.by)) + line : line.replace(new RegExp(`^ {0,${-e.by}}`), '');
        break;
      }
      case 'insert-line':
        lines.splice(i, 0, e.text);
        break;
      case 'replace-value': {
        const line = lines[i] ?? '';
        const colon = line.indexOf(': ');
        lines[i] = colon >= 0 ? `${line.slice(0, colon + 2)}${e.value}` : line.replace(/^(\s*- ).*$/, `$1${e.value}`);
        break;
      }
      case 'insert-chars': {
        const joined = lines.join('\n');
        const at = e.at % (joined.length + 1);
        lines = (joined.slice(0, at) + e.text + joined.slice(at)).split('\n');
        break;
      }
      case 'truncate': {
        const joined = lines.join('\n');
        lines = joined.slice(0, e.at % (joined.length + 1)).split('\n');
        break;
      }
    }
  }
  return lines.join('\n');
}

export function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export type TreeEdit =
  | { kind: 'set'; at: number; value: unknown }
  | { kind: 'delete'; at: number }
  | { kind: 'add-key'; at: number; key: string; value: unknown }
  | { kind: 'rename'; at: number; key: string }
  | { kind: 'duplicate-entry'; at: number };

const keyName = fc.oneof(
  fc.constantFrom(
    'name',
    'address',
    'hosts',
    'machineTypes',
    'images',
    'defaults',
    'sshPort',
    'Name',
    'adress',
    'vcpu',
    'sha256',
    'url',
    '__proto__',
    'constructor',
    'a.b',
    'x y',
    '',
    'üñí',
  ),
  fc.string({ maxLength: 10 }),
);
const treeValue = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  scalar.map((s) => s.replace(/^"|"$/g, '')),
  fc.constantFrom(null, [], {}, 0, -1, 1.5, 65536, 2 ** 53, true),
);
export const treeEdit: fc.Arbitrary<TreeEdit> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('set' as const), at: fc.nat(), value: treeValue }) },
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('add-key' as const), at: fc.nat(), key: keyName, value: treeValue }),
  fc.record({ kind: fc.constant('rename' as const), at: fc.nat(), key: keyName }),
  fc.record({ kind: fc.constant('duplicate-entry' as const), at: fc.nat() }),
);

/** Every container and the key or index of each child, in document order. */
function slots(root: unknown): Array<{ parent: Record<string, unknown> | unknown[]; key: string | number }> {
  const out: Array<{ parent: Record<string, unknown> | unknown[]; key: string | number }> = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      node.forEach((child, i) => {
        out.push({ parent: node, key: i });
        visit(child);
      });
    } else if (isMap(node)) {
      for (const [k, child] of Object.entries(node)) {
        out.push({ parent: node, key: k });
        visit(child);
      }
    }
  };
  visit(root);
  return out;
}

export function applyTree(tree: unknown, edits: readonly TreeEdit[]): unknown {
  const root = structuredClone(tree);
  for (const e of edits) {
    const all = slots(root);
    if (all.length === 0) break;
    const { parent, key } = all[e.at % all.length]!;
    const get = (): unknown => (Array.isArray(parent) ? parent[key as number] : parent[key as string]);
    switch (e.kind) {
      case 'set':
        if (Array.isArray(parent)) parent[key as number] = structuredClone(e.value);
        else
          Object.defineProperty(parent, key, {
            value: structuredClone(e.value),
            enumerable: true,
            writable: true,
            configurable: true,
          });
        break;
      case 'delete':
        if (Array.isArray(parent)) parent.splice(key as number, 1);
        else Reflect.deleteProperty(parent, key);
        break;
      case 'add-key': {
        const target = get();
        // defineProperty, as a YAML parser does: a key named __proto__ is data, not a prototype.
        if (isMap(target))
          Object.defineProperty(target, e.key, {
            value: structuredClone(e.value),
            enumerable: true,
            writable: true,
            configurable: true,
          });
        break;
      }
      case 'rename':
        if (!Array.isArray(parent) && e.key !== key) {
          Object.defineProperty(parent, e.key, {
            value: parent[key as string],
            enumerable: true,
            writable: true,
            configurable: true,
          });
          Reflect.deleteProperty(parent, key);
        }
        break;
      case 'duplicate-entry':
        if (Array.isArray(parent)) parent.splice(key as number, 0, structuredClone(parent[key as number]));
        break;
    }
  }
  return root;
}
