/**
 * Fuzzing config files: the real configs (test/fixtures/config, docs/examples) mutated as
 * text (YAML and JSON) and as trees, read the way the app reads a file (parseConfigText,
 * then validateProviderConfig). Whatever the mutation: never a crash, a parse error that
 * names its line, or problems whose messages start with the field's path (design.md:
 * `kvm.hosts[1].name: …`), each path pointing into the document. A config that passes
 * exports and reads back as itself.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { ConfigReadError, parseConfigText, serializeConfig } from '../../../electron/services/config/document.js';
import { type ConfigIssue, formatIssue, providerWithDefaults, validateProviderConfig } from '../../../shared/config.js';
import { FUZZ_TEST_TIMEOUT_MS, describeThrown, fuzzParams, withinBudget } from './fuzz-params.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const SOURCES = [
  ...readdirSync(join(ROOT, 'test/fixtures/config')).map((f) => join('test/fixtures/config', f)),
  ...readdirSync(join(ROOT, 'docs/examples')).map((f) => join('docs/examples', f)),
].filter((f) => f.endsWith('.yaml'));
const YAML_TEXTS = SOURCES.map((f) => readFileSync(join(ROOT, f), 'utf8'));
const TREES = YAML_TEXTS.map((t) => parseYaml(t) as unknown);
const JSON_TEXTS = TREES.map((t) => JSON.stringify(t, null, 2));

/** A case may take this long (twice in a row); more means work that grows faster than the input (a regex that backtracks). */
const CASE_BUDGET_MS = 400;

/** Values to put where a scalar was: the types, edges and sizes configs meet. */
const scalar = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('', '~', 'null', 'true', 'no', 'yes', '0', '-1', '0x1F', '1e400', '.inf', '-.nan', '65536', '3.5', '"quoted"', "'single'", '[]', '{}', '- x', '|', '>', '&anchor x', '*anchor', '!!binary AAAA', '!!str 1', '!!int "x"') },
  { weight: 3, arbitrary: fc.string({ maxLength: 20 }) },
  { weight: 1, arbitrary: fc.integer().map(String) },
  { weight: 1, arbitrary: fc.double().map(String) },
  // Long runs of a few characters: where a pattern that backtracks shows itself.
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(':', 'a', '0', '.', '-', 'a.', ':0', '%', ' '), fc.integer({ min: 1_000, max: 20_000 }), fc.constantFrom('', '!', ':', '%', '\u00e9')).map(([unit, n, tail]) => `"${unit.repeat(n)}${tail}"`) },
);

/** Lines a person (or a bad merge) might leave in a YAML file. */
const snippet = fc.oneof(
  fc.constantFrom('---', '...', '%YAML 1.2', '%TAG ! tag:x,2000:', '? complex key', ': value', '- item', '  - nested', '<<: *a', 'a: &a {x: 1}', 'b: *a', 'c: *missing', 'hosts: []', 'kvm:', 'type: kvm', 'type: gcp', 'gcp: {}', '\t- tab', '"unterminated', "'unterminated", '{ broken', '[ broken', '# comment', 'key: value # trailing', 'dup: 1', 'dup: 2', '\ufeff', '\r', 'x: !!binary AAAA', 'x: !custom y', 'name: local', 'address: local', 'sshPort: 0', '  name: edge-a'),
  fc.string({ maxLength: 30 }),
);

type TextEdit =
  | { kind: 'delete-line' | 'duplicate-line'; line: number }
  | { kind: 'swap-lines'; line: number; other: number }
  | { kind: 'indent'; line: number; by: number; tab: boolean }
  | { kind: 'insert-line'; line: number; text: string }
  | { kind: 'replace-value'; line: number; value: string }
  | { kind: 'insert-chars'; at: number; text: string }
  | { kind: 'truncate'; at: number };

const textEdit: fc.Arbitrary<TextEdit> = fc.oneof(
  fc.record({ kind: fc.constantFrom('delete-line' as const, 'duplicate-line' as const), line: fc.nat() }),
  fc.record({ kind: fc.constant('swap-lines' as const), line: fc.nat(), other: fc.nat() }),
  fc.record({ kind: fc.constant('indent' as const), line: fc.nat(), by: fc.integer({ min: -4, max: 4 }), tab: fc.boolean() }),
  fc.record({ kind: fc.constant('insert-line' as const), line: fc.nat(), text: snippet }),
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('replace-value' as const), line: fc.nat(), value: scalar }) },
  fc.record({ kind: fc.constant('insert-chars' as const), at: fc.nat(), text: fc.oneof(fc.constantFrom(':', ' ', '\n', '-', '"', "'", '{', '}', '[', ']', ',', '#', '&', '*', '!', '|', '>', '\t', '\0', '%', '@', '`'), fc.string({ maxLength: 8 })) }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
);

function applyText(text: string, edits: readonly TextEdit[]): string {
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
        lines[i] = e.by >= 0 ? (e.tab ? '\t' : ' '.repeat(e.by)) + line : line.replace(new RegExp(`^ {0,${-e.by}}`), '');
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

/** Splits a formatted path into its steps, trying every key of `node` where a plain key has dots in it. */
function resolves(node: unknown, path: string): 'whole' | 'parent' | 'no' {
  if (path === '') return 'whole';
  const step = (value: unknown, rest: string): Array<[unknown, string, boolean]> => {
    // Returns [child, remaining path, child exists] for every way the next step can be read.
    const out: Array<[unknown, string, boolean]> = [];
    const index = /^\[(\d+)\]/.exec(rest);
    if (index) {
      const i = Number(index[1]);
      out.push([Array.isArray(value) ? value[i] : undefined, rest.slice(index[0].length), Array.isArray(value) && i < value.length]);
      return out;
    }
    const quoted = /^\[("(?:[^"\\]|\\.)*")\]/.exec(rest);
    if (quoted) {
      const key = JSON.parse(quoted[1]!) as string;
      const has = isMap(value) && Object.hasOwn(value, key);
      out.push([has ? value[key] : undefined, rest.slice(quoted[0].length), has]);
      return out;
    }
    const plain = rest.startsWith('.') ? rest.slice(1) : rest;
    if (isMap(value)) {
      for (const key of Object.keys(value)) {
        if (plain.startsWith(key) && /^($|\.|\[)/.test(plain.slice(key.length))) out.push([value[key], plain.slice(key.length), true]);
      }
    }
    // A key that is not there (a required field): it is the last step, up to the next separator.
    const missing = /^[^.[]+/.exec(plain);
    if (missing && !out.some(([, r]) => r === plain.slice(missing[0].length))) out.push([undefined, plain.slice(missing[0].length), false]);
    return out;
  };
  const walk = (value: unknown, rest: string): 'whole' | 'parent' | 'no' => {
    let best: 'whole' | 'parent' | 'no' = 'no';
    for (const [child, remaining, exists] of step(value, rest)) {
      if (remaining === '') {
        if (exists) return 'whole';
        best = 'parent';
      } else if (exists) {
        const r = walk(child, remaining);
        if (r === 'whole') return r;
        if (r === 'parent') best = 'parent';
      }
    }
    return best;
  };
  return walk(node, path);
}

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** zod's own English, which would mean a check the config's wording does not cover. */
const ZOD_DEFAULT = /^(Invalid input|Invalid option|Invalid (string|number|element|key|union)|Too (small|big)|Unrecognized key|Expected|Required$)/;

function checkIssues(input: unknown, issues: readonly ConfigIssue[]): void {
  expect(issues.length).toBeGreaterThan(0);
  for (const issue of issues) {
    const line = formatIssue(issue);
    expect(issue.message, line).toMatch(/\S/);
    // Our own wording never prints a missing value or a bad number; the person's own text,
    // quoted back to them (`got the text "NaN"`), may say anything.
    const ours = issue.message.replace(/"(?:[^"\\]|\\.)*"/g, '""');
    expect(ours, line).not.toMatch(/undefined|\[object Object\]|NaN/);
    expect(issue.message, line).not.toMatch(ZOD_DEFAULT);
    if (isMap(input)) {
      // Path first: every problem in a document that is a map names its field.
      expect(issue.path, `no path: ${line}`).not.toBe('');
      expect(line.startsWith(`${issue.path}: `)).toBe(true);
      expect(resolves(input, issue.path), `the path does not point into the document: ${line}`).not.toBe('no');
    }
  }
}

/** What the app does with a file's text; fails the property on anything a person should not see. */
function readChecked(text: string, file: string): void {
  let parsed: unknown;
  try {
    parsed = parseConfigText(text, file);
  } catch (err) {
    if (!(err instanceof ConfigReadError)) expect.fail(`parseConfigText threw something other than ConfigReadError: ${describeThrown(err)}`);
    // A parse error names its line (only an empty file has none to name).
    if (err.reason !== 'the file is empty') {
      expect(err.position, `no line in: ${err.message}`).toBeDefined();
      expect(err.message).toMatch(new RegExp(`^${file.replace('.', '\\.')}: line \\d+, column \\d+: \\S`));
    }
    return;
  }
  validateChecked(parsed);
}

/** Valid configs whose export has been checked already. */
const exported = new Set<string>();

function validateChecked(input: unknown): void {
  let result: ReturnType<typeof validateProviderConfig>;
  try {
    result = validateProviderConfig(input);
  } catch (err) {
    expect.fail(`validateProviderConfig threw: ${describeThrown(err)}`);
  }
  if (!result.ok) return checkIssues(input, result.issues);
  // A config that passes is one the app can use: it exports, and the export reads back as
  // itself. Many mutations (a comment, a blank line) leave the same config: check each once.
  const key = JSON.stringify(result.config);
  if (exported.has(key)) return;
  exported.add(key);
  providerWithDefaults(result.config);
  for (const format of ['operator', 'json'] as const) {
    const text = serializeConfig(result.config, format);
    const again = validateProviderConfig(parseConfigText(text, format === 'json' ? 'export.json' : 'export.yaml'));
    expect(again.ok, `${format} export of a valid config does not validate: ${text}`).toBe(true);
    if (again.ok) expect(again.config).toEqual(result.config);
  }
}

type TreeEdit =
  | { kind: 'set'; at: number; value: unknown }
  | { kind: 'delete'; at: number }
  | { kind: 'add-key'; at: number; key: string; value: unknown }
  | { kind: 'rename'; at: number; key: string }
  | { kind: 'duplicate-entry'; at: number };

const keyName = fc.oneof(fc.constantFrom('name', 'address', 'hosts', 'machineTypes', 'images', 'defaults', 'sshPort', 'Name', 'adress', 'vcpu', 'sha256', 'url', '__proto__', 'constructor', 'a.b', 'x y', '', 'üñí'), fc.string({ maxLength: 10 }));
const treeValue = fc.oneof(fc.jsonValue({ maxDepth: 2 }), scalar.map((s) => s.replace(/^"|"$/g, '')), fc.constantFrom(null, [], {}, 0, -1, 1.5, 65536, 2 ** 53, true));
const treeEdit: fc.Arbitrary<TreeEdit> = fc.oneof(
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

function applyTree(tree: unknown, edits: readonly TreeEdit[]): unknown {
  const root = structuredClone(tree);
  for (const e of edits) {
    const all = slots(root);
    if (all.length === 0) break;
    const { parent, key } = all[e.at % all.length]!;
    const get = (): unknown => (Array.isArray(parent) ? parent[key as number] : parent[key as string]);
    switch (e.kind) {
      case 'set':
        if (Array.isArray(parent)) parent[key as number] = structuredClone(e.value);
        else Object.defineProperty(parent, key, { value: structuredClone(e.value), enumerable: true, writable: true, configurable: true });
        break;
      case 'delete':
        if (Array.isArray(parent)) parent.splice(key as number, 1);
        else Reflect.deleteProperty(parent, key);
        break;
      case 'add-key': {
        const target = get();
        // defineProperty, as a YAML parser does: a key named __proto__ is data, not a prototype.
        if (isMap(target)) Object.defineProperty(target, e.key, { value: structuredClone(e.value), enumerable: true, writable: true, configurable: true });
        break;
      }
      case 'rename':
        if (!Array.isArray(parent) && e.key !== key) {
          Object.defineProperty(parent, e.key, { value: parent[key as string], enumerable: true, writable: true, configurable: true });
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

describe('fuzz: config files', () => {
  it('the real configs are valid (the fuzz starts from files the app accepts)', () => {
    expect(SOURCES.length).toBeGreaterThanOrEqual(3);
    for (const text of YAML_TEXTS) expect(validateProviderConfig(parseConfigText(text, 'config.yaml')).ok).toBe(true);
  });

  it('YAML text mutations: a ConfigReadError naming the line, or path-first problems, or a config that exports', () => {
    const cases = fc.tuple(fc.nat(YAML_TEXTS.length - 1), fc.array(textEdit, { minLength: 1, maxLength: 4 }));
    fc.assert(
      fc.property(cases, ([i, edits]) => withinBudget(CASE_BUDGET_MS, () => readChecked(applyText(YAML_TEXTS[i]!, edits), 'config.yaml'))),
      fuzzParams(),
    );
  }, FUZZ_TEST_TIMEOUT_MS);

  it('JSON text mutations: the same, under JSON’s rules', () => {
    const cases = fc.tuple(fc.nat(JSON_TEXTS.length - 1), fc.array(textEdit, { minLength: 1, maxLength: 4 }));
    fc.assert(
      fc.property(cases, ([i, edits]) => withinBudget(CASE_BUDGET_MS, () => readChecked(applyText(JSON_TEXTS[i]!, edits), 'config.json'))),
      fuzzParams(),
    );
  }, FUZZ_TEST_TIMEOUT_MS);

  it('tree mutations (wrong types, missing and unknown fields, renamed keys): path-first problems or a config that exports', () => {
    const cases = fc.tuple(fc.nat(TREES.length - 1), fc.array(treeEdit, { minLength: 1, maxLength: 4 }));
    fc.assert(
      fc.property(cases, ([i, edits]) => {
        const tree = applyTree(TREES[i]!, edits);
        withinBudget(CASE_BUDGET_MS, () => validateChecked(tree));
      }),
      fuzzParams(),
    );
  }, FUZZ_TEST_TIMEOUT_MS);
});
