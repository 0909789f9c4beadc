// `npm start`: build, then open the app window with Electron. Electron fetches its binary
// on first run; where that cannot happen (no network), this says so plainly.
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const build = spawnSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

let electronPath;
try {
  electronPath = createRequire(import.meta.url)('electron');
} catch (err) {
  console.error(`\nEgress Desk could not start Electron: ${err instanceof Error ? err.message.split('\n')[0] : err}`);
  console.error('Electron downloads its binary on first run; this machine could not fetch it.');
  console.error('The CLI works without it: npx egress-desk --help');
  process.exit(1);
}
const child = spawn(electronPath, ['.'], { stdio: 'inherit' });
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
