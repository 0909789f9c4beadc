/**
 * No test that runs against the real environment carries a key or fingerprint of some
 * machine. Under CI every run creates new sshd host and client keys (test/env/up.sh), so
 * such a literal passes only where it was written and fails everywhere else: a test reads
 * the key from env.json (test/support/env.ts) or makes one when it runs.
 *
 * Unit tests may keep fixed key vectors: they test pure code, not a machine.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../support/dist.js';

/** The lanes that run against this run's environment, and the helpers they share. */
const SCANNED = ['test/libvirt', 'test/browser', 'test/guest', 'test/support'];

/** An OpenSSH public key blob (base64 of a length-prefixed type name) or a SHA256 fingerprint. */
const KEY_OR_FINGERPRINT = /AAAA[A-Za-z0-9+/]{40,}|SHA256:[A-Za-z0-9+/]{43}/g;

/** Each literal in `text` that looks like a key or fingerprint, with its line number. */
function keyLiterals(text: string): Array<{ line: number; literal: string }> {
  return text
    .split('\n')
    .flatMap((line, i) => [...line.matchAll(KEY_OR_FINGERPRINT)].map((m) => ({ line: i + 1, literal: m[0] })));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx|js|mjs|sh|json|ya?ml)$/.test(e.name) ? [path] : [];
  });
}

describe('no machine-specific keys in the environment lanes', () => {
  it('recognises a key blob and a fingerprint, and leaves other base64 alone', () => {
    // Built here, so that this file holds no such literal itself.
    const blob = Buffer.concat([
      Buffer.from([0, 0, 0, 11]),
      Buffer.from('ssh-ed25519'),
      Buffer.from([0, 0, 0, 32]),
      Buffer.alloc(32, 7),
    ]).toString('base64');
    const fingerprint = `SHA256:${Buffer.alloc(32, 9).toString('base64').replace(/=+$/, '')}`;
    expect(keyLiterals(`ok\nconst k = 'ssh-ed25519 ${blob}';\nconst f = '${fingerprint}';`)).toEqual([
      { line: 2, literal: blob },
      { line: 3, literal: fingerprint },
    ]);
    expect(
      keyLiterals(`const sha = '${'ab'.repeat(32)}'; const b = '${Buffer.alloc(40, 1).toString('base64')}';`),
    ).toEqual([]);
  });

  it.each(SCANNED)('%s holds no key or fingerprint literal (read it from env.json, or make one in the test)', (dir) => {
    const found = sourceFiles(join(repoRoot, dir)).flatMap((file) =>
      keyLiterals(readFileSync(file, 'utf8')).map(
        (f) => `${relative(repoRoot, file)}:${f.line}: ${f.literal.slice(0, 24)}…`,
      ),
    );
    expect(found, `machine-specific key literals:\n${found.join('\n')}`).toEqual([]);
  });
});
