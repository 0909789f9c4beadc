import { mkdirSync, readFileSync, writeFileSync, readdirSync } from 'node:fs';

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { providerWithDefaults, validateProviderConfig } from '../../../shared/config.js';
import {
  ConfigInvalidError,
  ConfigReadError,
  MAX_CONFIG_BYTES,
  loadConfigFile,
  parseConfigText,
  readConfigFile,
  serializeConfig,
} from '../../../electron/services/config/document.js';
import { tempDir } from '../../support/temp-dir.js';

const fixture = readFileSync(new URL('../../fixtures/config/canonical.yaml', import.meta.url), 'utf8');
const examplesDir = new URL('../../../docs/examples/', import.meta.url);

function tmp(): string {
  return tempDir('egress-doc-');
}

function readError(fn: () => unknown): ConfigReadError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigReadError) return err;
    throw err;
  }
  throw new Error('expected a ConfigReadError');
}

describe('config documents', () => {
  it('round-trips the canonical YAML unchanged (YAML -> object -> YAML)', () => {
    const result = validateProviderConfig(parseConfigText(fixture, 'canonical.yaml'));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(serializeConfig(result.config)).toBe(fixture);
  });

  it('round-trips through JSON to the same object', () => {
    const config = parse(fixture) as unknown;
    const json = serializeConfig(config as never, 'json');
    expect(JSON.parse(json)).toEqual(config);
    expect(parseConfigText(json, 'c.json')).toEqual(config);
  });

  it('puts keys in the documented order whatever the input order', () => {
    const shuffled = {
      kvm: { machineTypes: { s: { memoryMiB: 256, vcpus: 1 } }, hosts: [{ address: 'local', name: 'l' }] },
      type: 'kvm',
    };
    const out = serializeConfig(shuffled as never);
    expect(out).toBe(
      'type: kvm\nkvm:\n  hosts:\n    - name: l\n      address: local\n  machineTypes:\n    s:\n      vcpus: 1\n      memoryMiB: 256\n',
    );
  });

  it('quotes strings that YAML would otherwise read as numbers', () => {
    const config = parse(fixture) as { kvm: { images: Record<string, { sha256: string }> } };
    config.kvm.images['debian-12']!.sha256 = '1'.repeat(64);
    const back = parse(serializeConfig(config as never)) as typeof config;
    expect(back.kvm.images['debian-12']!.sha256).toBe('1'.repeat(64));
  });

  it.each(readdirSync(examplesDir).filter((f) => f.endsWith('.yaml')))(
    'docs/examples/%s validates and round-trips',
    async (name) => {
      const config = await loadConfigFile(new URL(name, examplesDir).pathname);
      const again = validateProviderConfig(parseConfigText(serializeConfig(config), name));
      expect(again).toEqual({ ok: true, config });
      const exported = serializeConfig(providerWithDefaults(config));
      expect(serializeConfig(providerWithDefaults(config))).toBe(exported);
      expect(validateProviderConfig(parse(exported)).ok).toBe(true);
    },
  );

  it('reports YAML syntax errors with line and column', () => {
    const err = readError(() => parseConfigText('type: kvm\nkvm:\n  hosts: [\n', 'f.yaml'));
    expect(err.position).toEqual({ line: 4, column: 1 });
    expect(err.message).toMatch(/^f\.yaml: line 4, column 1: /);
  });

  it('reports JSON syntax errors with line and column', () => {
    const err = readError(() => parseConfigText('{\n  "type": "kvm",\n  "kvm": {\n}', 'f.json'));
    expect(err.position?.line).toBeGreaterThanOrEqual(4);
  });

  it('refuses duplicate keys', () => {
    const err = readError(() => parseConfigText('type: kvm\ntype: gcp\n', 'f.yaml'));
    expect(err.message).toBe('f.yaml: line 2, column 1: Map keys must be unique');
  });

  it('refuses empty files, multiple documents and alias bombs', () => {
    expect(readError(() => parseConfigText('  \n', 'e.yaml')).reason).toBe('the file is empty');
    expect(readError(() => parseConfigText('a: 1\n---\nb: 2\n', 'm.yaml')).message).toMatch(
      /multiple documents|document/i,
    );
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x]'];
    for (let i = 0; i < 9; i++)
      bomb.push(
        `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}]`,
      );
    expect(readError(() => parseConfigText(bomb.join('\n'), 'bomb.yaml')).reason).toMatch(/alias/i);
  });

  it('names the line of an alias that cannot be resolved, or that expands too far (found by fuzzing)', () => {
    // test/unit/fuzz/config-files.test.ts: these failed while resolving aliases, after
    // parsing, and came out without a position ("config.yaml: Unresolved alias …").
    const unresolved = readError(() => parseConfigText('type: kvm\nkvm:\n  <<: *base\n', 'u.yaml'));
    expect(unresolved.position).toEqual({ line: 3, column: 7 });
    expect(unresolved.message).toMatch(/^u\.yaml: line 3, column 7: Unresolved alias/);
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x]'];
    for (let i = 0; i < 9; i++)
      bomb.push(
        `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${`*${String.fromCharCode(97 + i)}, `.repeat(8)}*${String.fromCharCode(97 + i)}]`,
      );
    expect(readError(() => parseConfigText(bomb.join('\n'), 'bomb.yaml')).message).toMatch(
      /^bomb\.yaml: line 2, column \d+: .*alias/i,
    );
  });

  it('refuses a list or a map as a map key, naming its line (found by fuzzing)', () => {
    // The parser turned such a key into text and printed a process warning on stderr.
    const warnings: Error[] = [];
    const onWarning = (w: Error): number => warnings.push(w);
    process.on('warning', onWarning);
    try {
      for (const [text, line] of [
        ['type: kvm\n? [a, b]\n: c\n', 2],
        ['type: kvm\nkvm: { {x: 1}: y }\n', 2],
      ] as const) {
        const err = readError(() => parseConfigText(text, 'k.yaml'));
        expect(err.message).toMatch(
          new RegExp(`^k\\.yaml: line ${line}, column \\d+: a map key must be a single value, not a list or a map$`),
        );
      }
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).toEqual([]);
  });

  it('refuses a missing file, a directory, a huge file and a binary file before parsing', async () => {
    const dir = tmp();
    await expect(readConfigFile(join(dir, 'nope.yaml'))).rejects.toMatchObject({ reason: 'no such file' });
    mkdirSync(join(dir, 'sub'));
    await expect(readConfigFile(join(dir, 'sub'))).rejects.toMatchObject({
      reason: 'is a directory, not a config file',
    });
    writeFileSync(join(dir, 'big.yaml'), Buffer.alloc(MAX_CONFIG_BYTES + 1, 'a'));
    await expect(readConfigFile(join(dir, 'big.yaml'))).rejects.toMatchObject({
      reason: expect.stringMatching(/limited to 1024 KiB/),
    });
    writeFileSync(join(dir, 'bin.yaml'), Buffer.from([0x51, 0x46, 0x49, 0xfb, 0, 0, 0, 3]));
    await expect(readConfigFile(join(dir, 'bin.yaml'))).rejects.toMatchObject({
      reason: 'is a binary file, not YAML or JSON',
    });
  });

  it('raises ConfigInvalidError with every issue for a file that parses but does not validate', async () => {
    const dir = tmp();
    writeFileSync(join(dir, 'c.yaml'), 'type: kvm\nkvm:\n  hosts: []\n  machineTypes: {}\n');
    const err = await loadConfigFile(join(dir, 'c.yaml')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigInvalidError);
    expect((err as ConfigInvalidError).issues.map((i) => i.path)).toEqual(['kvm.hosts', 'kvm.machineTypes']);
  });
});
