/**
 * No import cycles in product code (issue 17): a cycle makes initialisation order matter
 * and blurs which layer depends on which. Relative imports (type-only ones too: a type
 * cycle is still a design cycle) are followed from every file of electron/, shared/ and
 * renderer/; each cycle found is printed as the chain of files.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../support/dist.js';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The files a source imports relatively (`./x.js` is `./x.ts` or `./x.tsx` on disk). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+['"](\.{1,2}\/[^'"]+)['"]/gm)) {
    const base = resolve(dirname(file), m[1]!.replace(/\.js$/, ''));
    const hit = [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts')].find((p) => existsSync(p));
    if (hit) out.push(hit);
  }
  return out;
}

describe('imports', () => {
  it('form no cycle in electron/, shared/ and renderer/', () => {
    const files = ['electron', 'shared', 'renderer'].flatMap((d) => sources(join(repoRoot, d)));
    const graph = new Map(files.map((f) => [f, importsOf(f)]));
    const state = new Map<string, 'active' | 'done'>();
    const cycles: string[] = [];
    const visit = (file: string, chain: string[]): void => {
      state.set(file, 'active');
      for (const next of graph.get(file) ?? []) {
        if (state.get(next) === 'active')
          cycles.push(
            [...chain.slice(chain.indexOf(next)), file, next]
              .map((f) => relative(repoRoot, f))
              .filter((f, i, a) => a.indexOf(f) === i || i === a.length - 1)
              .join(' → '),
          );
        else if (!state.has(next)) visit(next, [...chain, file]);
      }
      state.set(file, 'done');
    };
    for (const f of files) if (!state.has(f)) visit(f, []);
    expect(files.length).toBeGreaterThan(100);
    expect(cycles).toEqual([]);
  });
});
