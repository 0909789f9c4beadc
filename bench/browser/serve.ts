/**
 * `egress-desk serve` as a real child process (the built CLI): the browser lane
 * (test/browser/serve-process.ts) and the UI benchmarks (bench/ui.ts) both drive it.
 */
import { type ChildProcess, spawn } from 'node:child_process';

export interface ServeProcess {
  child: ChildProcess;
  /** The one-time link printed on stdout. */
  url: string;
  origin: string;
  stdout: () => string;
  stderr: () => string;
  /** Sends a signal and resolves to the exit code (null if killed by a signal). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Starts `bin serve --no-open` (bin: the path of bin/egress-desk.js, which differs between
 * the sources and dist/) and waits for its link (rejects with its stderr if it exits first).
 * With `as` (root only), serve runs as that user with its groups (setpriv --init-groups),
 * in its HOME (this process's directory, the checkout, may be closed to that user);
 * `nodeArgs` go to node before the script (e.g. `--cpu-prof`, which NODE_OPTIONS refuses).
 * With `netns` (root only), serve runs inside that network namespace (`ip netns exec`): its
 * backend then probes guests on a network that lives there, as a workstation with a route
 * to them would; its 127.0.0.1 is the namespace's (see {@link launchChromium}'s `netns`).
 */
export function startServeProcess(
  bin: string,
  env: Record<string, string>,
  args: string[] = [],
  timeoutMs = 20_000,
  as?: { uid: number; gid: number },
  nodeArgs: string[] = [],
  netns?: string,
): Promise<ServeProcess> {
  const argv = [...nodeArgs, bin, 'serve', '--no-open', ...args];
  const [user, userArgs] = as
    ? ['setpriv', [`--reuid=${as.uid}`, `--regid=${as.gid}`, '--init-groups', '--', process.execPath, ...argv]]
    : [process.execPath, argv];
  const [command, commandArgs] = netns ? ['ip', ['netns', 'exec', netns, user, ...userArgs]] : [user, userArgs];
  const home = env.HOME ?? process.env.HOME ?? '/';
  const child = spawn(command, commandArgs, {
    env: { PATH: process.env.PATH ?? '', HOME: home, ...env },
    cwd: as ? home : undefined,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`egress-desk serve printed no link within ${timeoutMs} ms; stderr:\n${stderr}`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`egress-desk serve exited (${code}) before printing a link; stderr:\n${stderr}`));
    });
    child.stdout.on('data', (d: string) => {
      stdout += d;
      const line = stdout.split('\n')[0];
      if (!stdout.includes('\n') || !line) return;
      clearTimeout(timer);
      const url = line.trim();
      resolve({
        child,
        url,
        origin: new URL(url).origin,
        stdout: () => stdout,
        stderr: () => stderr,
        stop: async (signal = 'SIGTERM') => {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          return exited;
        },
      });
    });
  });
}
