/**
 * Small files named for what they hold (issue 17): a source file outside test/ over 400
 * lines is a sign that it holds two things, so one that stays larger says why in the
 * comment at its top ("Over 400 lines on purpose: …"). Each file that does not is named.
 */
import { readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../support/dist.js';
import { tempDir } from '../../support/temp-dir.js';

const LIMIT = 400;
const ROOTS = ['electron', 'shared', 'renderer', 'bench', 'scripts', 'bin'];

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : sources(path);
    return /\.(ts|tsx|mjs|js|cjs)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The file's leading comment (after a shebang), or '' when it starts with code. */
function topComment(text: string): string {
  const body = text.replace(/^#![^\n]*\n/, '').trimStart();
  if (body.startsWith('/*')) return body.slice(0, body.indexOf('*/') + 2);
  const lines = body.split('\n');
  const n = lines.findIndex((l) => !l.startsWith('//'));
  return lines.slice(0, n === -1 ? lines.length : n).join('\n');
}

function oversizedWithoutReason(files: string[]): string[] {
  return files.flatMap((file) => {
    const text = readFileSync(file, 'utf8');
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    return lines > LIMIT && !/over 400 lines/i.test(topComment(text))
      ? [`${relative(repoRoot, file)}: ${lines} lines`]
      : [];
  });
}

describe('source file size', () => {
  it(`no source file outside test/ is over ${LIMIT} lines without saying why at its top`, () => {
    const files = ROOTS.flatMap((root) => {
      try {
        return sources(join(repoRoot, root));
      } catch {
        return []; // a root this checkout does not have
      }
    });
    expect(files.length).toBeGreaterThan(50);
    expect(oversizedWithoutReason(files)).toEqual([]);
  });

  it('names a long file whose top comment gives no reason, and accepts one that does', () => {
    const dir = tempDir('egress-size-');
    try {
      const code = 'export const x = 1;\n'.repeat(LIMIT);
      const silent = join(dir, 'silent.ts');
      const said = join(dir, 'said.ts');
      const short = join(dir, 'short.ts');
      writeFileSync(silent, `/** Things. */\n${code}`);
      writeFileSync(said, `/**\n * Things.\n *\n * Over 400 lines on purpose: one table.\n */\n${code}`);
      writeFileSync(short, code);
      expect(oversizedWithoutReason([silent, said, short]).map((r) => r.replace(/^.*\//, ''))).toEqual([
        `silent.ts: ${LIMIT + 1} lines`,
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
