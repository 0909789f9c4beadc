// `npm start`: build, then open the app: the desktop window where Electron's binary exists,
// else the same app in the browser (`egress-desk serve`); electron/start/ decides and says why.
// `--no-build` skips the build (tests run it against the build npm test already made).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
if (!args.includes('--no-build')) {
  const build = spawnSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
const entry = new URL('../dist/electron/start/run-start.js', import.meta.url);
if (!existsSync(entry)) {
  console.error('npm start: the app is not built; run npm run build, or npm start without --no-build.');
  process.exit(1);
}
const { runStart } = await import(entry.href);
process.exitCode = await runStart(args, fileURLToPath(new URL('..', import.meta.url)));
