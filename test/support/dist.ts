/** Paths into the compiled build, which the CLI and crash tests run as real processes. */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
export const cliBin = fileURLToPath(new URL('../../bin/egress-desk.js', import.meta.url));

/** The compiled form of a source module (`electron/x.ts` -> `dist/electron/x.js`); fails clearly when not built. */
export function distModule(source: string): string {
  const path = fileURLToPath(new URL(`../../dist/${source.replace(/\.ts$/, '.js')}`, import.meta.url));
  if (!existsSync(path)) throw new Error(`${path} is missing: run \`npm run build:node\` first (npm test does).`);
  return path;
}
