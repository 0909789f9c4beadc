/**
 * `npm start` after the build (scripts/start.mjs): opens the desktop window, or the same app
 * in the browser through `egress-desk serve`, as {@link chooseFrontEnd} decides, and stays
 * until that front end exits.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { findElectronBinary } from './electron-binary.js';
import { chooseFrontEnd, parseStartArgs, START_USAGE, windowFailedNote } from './front-end-choice.js';

/** The directory of the installed `electron` package, resolved from the project; undefined when it is not installed. */
function electronPackageDir(repoRoot: string): string | undefined {
  try {
    // package.json, not the package itself: requiring `electron` would start its download.
    return dirname(createRequire(join(repoRoot, 'package.json')).resolve('electron/package.json'));
  } catch {
    return undefined;
  }
}

/**
 * Fetches the binary with the package's own installer (what `require('electron')` would do),
 * quietly: resolves to undefined on success, else the installer's first error line.
 */
function downloadElectron(packageDir: string, env: NodeJS.ProcessEnv): string | undefined {
  process.stderr.write('Egress Desk: fetching the Electron binary (once, about 100 MB)…\n');
  const run = spawnSync(process.execPath, [join(packageDir, 'install.js')], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
  });
  if (run.status === 0) return undefined;
  // The installer prints a stack; its first line is the error ("TypeError: fetch failed", "HTTPError: Response code 404 …").
  return (
    run.stderr.split('\n').find((line) => line.trim() !== '') ?? `the installer exited with ${run.status ?? run.signal}`
  ).trim();
}

/** Runs a child on this terminal until it exits: its exit code, or the error that kept it from starting. */
function runChild(command: string, args: string[], cwd?: string): Promise<{ code: number } | { error: Error }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'inherit', cwd });
    // Ctrl-C reaches the child too (same foreground process group): ignore it here and let the
    // child end; passing it on would hand the child a second SIGINT in the middle of its shutdown.
    const ignore = (): void => undefined;
    // SIGTERM is sent to us alone (kill, a supervisor): the child has to hear of it from us.
    const forward = (): void => void child.kill('SIGTERM');
    process.on('SIGINT', ignore);
    process.on('SIGTERM', forward);
    const done = (result: { code: number } | { error: Error }): void => {
      process.off('SIGINT', ignore);
      process.off('SIGTERM', forward);
      resolve(result);
    };
    child.once('error', (error) => done({ error }));
    child.once('exit', (code) => done({ code: code ?? 1 }));
  });
}

/** Runs `npm start`'s front end for `argv` (after `--`) and resolves to the exit code. */
export async function runStart(
  argv: readonly string[],
  repoRoot: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const options = parseStartArgs(argv);
  if (options.help) {
    process.stdout.write(`${START_USAGE}\n`);
    return 0;
  }
  const packageDir = electronPackageDir(repoRoot);
  const facts = { options, env, platform: process.platform };
  let frontEnd = chooseFrontEnd({ ...facts, binary: findElectronBinary(packageDir, env) });
  if (frontEnd.kind === 'download' && packageDir !== undefined) {
    const error = downloadElectron(packageDir, env);
    frontEnd = chooseFrontEnd({ ...facts, binary: findElectronBinary(packageDir, env), download: { error } });
  }
  const serve = async (note: string, serveArgs: string[]): Promise<number> => {
    process.stderr.write(`${note}\n`);
    const result = await runChild(process.execPath, [join(repoRoot, 'bin', 'egress-desk.js'), 'serve', ...serveArgs]);
    if ('error' in result) throw result.error;
    return result.code;
  };
  if (frontEnd.kind === 'browser') return serve(frontEnd.note, frontEnd.serveArgs);
  // Only a second download would be asked for here, and chooseFrontEnd never asks twice.
  if (frontEnd.kind === 'download') throw new Error('npm start: the Electron binary was asked for twice');
  const window = await runChild(frontEnd.electron, ['.'], repoRoot);
  if ('code' in window) return window.code;
  return serve(windowFailedNote(window.error.message), []);
}
