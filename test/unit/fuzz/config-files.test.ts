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
import { applyText, applyTree, isMap, textEdit, treeEdit } from './config-mutations.js';
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

/** Splits a formatted path into its steps, trying every key of `node` where a plain key has dots in it. */
function resolves(node: unknown, path: string): 'whole' | 'parent' | 'no' {
  if (path === '') return 'whole';
  const step = (value: unknown, rest: string): Array<[unknown, string, boolean]> => {
    // Returns [child, remaining path, child exists] for every way the next step can be read.
    const out: Array<[unknown, string, boolean]> = [];
    const index = /^\[(\d+)\]/.exec(rest);
    if (index) {
      const i = Number(index[1]);
      out.push([
        Array.isArray(value) ? value[i] : undefined,
        rest.slice(index[0].length),
        Array.isArray(value) && i < value.length,
      ]);
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
        if (plain.startsWith(key) && /^($|\.|\[)/.test(plain.slice(key.length)))
          out.push([value[key], plain.slice(key.length), true]);
      }
    }
    // A key that is not there (a required field): it is the last step, up to the next separator.
    const missing = /^[^.[]+/.exec(plain);
    if (missing && !out.some(([, r]) => r === plain.slice(missing[0].length)))
      out.push([undefined, plain.slice(missing[0].length), false]);
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

/** zod's own English, which would mean a check the config's wording does not cover. */
const ZOD_DEFAULT =
  /^(Invalid input|Invalid option|Invalid (string|number|element|key|union)|Too (small|big)|Unrecognized key|Expected|Required$)/;

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
    if (!(err instanceof ConfigReadError))
      expect.fail(`parseConfigText threw something other than ConfigReadError: ${describeThrown(err)}`);
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

describe('fuzz: config files', () => {
  it('the real configs are valid (the fuzz starts from files the app accepts)', () => {
    expect(SOURCES.length).toBeGreaterThanOrEqual(3);
    for (const text of YAML_TEXTS) expect(validateProviderConfig(parseConfigText(text, 'config.yaml')).ok).toBe(true);
  });

  it(
    'YAML text mutations: a ConfigReadError naming the line, or path-first problems, or a config that exports',
    () => {
      const cases = fc.tuple(fc.nat(YAML_TEXTS.length - 1), fc.array(textEdit, { minLength: 1, maxLength: 4 }));
      fc.assert(
        fc.property(cases, ([i, edits]) =>
          withinBudget(CASE_BUDGET_MS, () => readChecked(applyText(YAML_TEXTS[i]!, edits), 'config.yaml')),
        ),
        fuzzParams(),
      );
    },
    FUZZ_TEST_TIMEOUT_MS,
  );

  it(
    'JSON text mutations: the same, under JSON’s rules',
    () => {
      const cases = fc.tuple(fc.nat(JSON_TEXTS.length - 1), fc.array(textEdit, { minLength: 1, maxLength: 4 }));
      fc.assert(
        fc.property(cases, ([i, edits]) =>
          withinBudget(CASE_BUDGET_MS, () => readChecked(applyText(JSON_TEXTS[i]!, edits), 'config.json')),
        ),
        fuzzParams(),
      );
    },
    FUZZ_TEST_TIMEOUT_MS,
  );

  it(
    'tree mutations (wrong types, missing and unknown fields, renamed keys): path-first problems or a config that exports',
    () => {
      const cases = fc.tuple(fc.nat(TREES.length - 1), fc.array(treeEdit, { minLength: 1, maxLength: 4 }));
      fc.assert(
        fc.property(cases, ([i, edits]) => {
          const tree = applyTree(TREES[i]!, edits);
          withinBudget(CASE_BUDGET_MS, () => validateChecked(tree));
        }),
        fuzzParams(),
      );
    },
    FUZZ_TEST_TIMEOUT_MS,
  );
});
