/**
 * What the fault lane's files share (faults-connections, faults-resources and
 * faults-bad-input .test.ts; docs/reliability.md has the table of faults): a connection of
 * the file's own to qemu:///system for checks and cleanup, the backend serve runs over a
 * local and an SSH entry, virsh, and the test sshd's sessions (the ones a fault kills).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll } from 'vitest';
import { type AppServices, createAppServices } from '../../electron/ipc/app-services.js';
import { type LibvirtClient, findVolume } from '../../electron/libvirt/index.js';
import type { Envelope } from '../../shared/ipc.js';
import type { Task } from '../../shared/tasks.js';
import { testEnv } from '../support/env.js';
import { removeProxy, removeVolumes, systemClient, testPool } from '../support/libvirt.js';
import { localAndSshHome } from '../support/provider.js';
import { tempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait.js';

/** A test file's connection to qemu:///system. */
export interface SystemConnection {
  /** The connection as it is now. */
  readonly client: LibvirtClient;
  /**
   * The connection, made again when it was lost (a daemon restart, a keepalive timeout):
   * cleanup must not depend on the connection a failed test may have broken.
   */
  live(): Promise<LibvirtClient>;
  /** Closes the connection and opens another (libvirtd restarted under it). */
  reconnect(): Promise<LibvirtClient>;
}

/** Connects before the file's tests (beforeAll) and closes after them. */
export function useSystemClient(): SystemConnection {
  let client: LibvirtClient | undefined;
  let lostBecause: string | undefined;
  const connect = async (): Promise<LibvirtClient> => {
    const c = await systemClient();
    c.on('close', (reason: unknown) => {
      lostBecause = reason instanceof Error ? reason.message : String(reason);
    });
    return c;
  };
  beforeAll(async () => {
    client = await connect();
  });
  afterAll(async () => {
    await client?.close();
  });
  const current = (): LibvirtClient => {
    if (!client) throw new Error("the system connection is made before the file's tests: use it inside one");
    return client;
  };
  return {
    get client() {
      return current();
    },
    async live() {
      if (current().closed) {
        // Said in the log: a lost connection is worth knowing about even when the test goes on.
        console.warn(
          `faults: the test's own libvirt connection had closed (${lostBecause ?? 'no reason given'}); connecting again`,
        );
        client = await connect();
      }
      return current();
    },
    async reconnect() {
      await current()
        .close()
        .catch(() => undefined);
      client = await connect();
      return client;
    },
  };
}

/** After a fault, whatever it left: the proxies `names`, the base `volumes` they used, and the test's directory. */
export async function removeLeftovers(
  sys: SystemConnection,
  names: readonly string[],
  volumes: readonly string[],
  dir: string,
): Promise<void> {
  for (const name of names) await removeProxy(await sys.live(), name);
  await removeVolumes(await sys.live(), volumes);
  rmSync(dir, { recursive: true, force: true });
}

export function virsh(...args: string[]): string {
  return execFileSync('virsh', ['-q', '-c', 'qemu:///system', ...args], { encoding: 'utf8' });
}

/** The backend serve runs, over a local and an SSH entry on the test hypervisor. */
export async function backend(prefix: string, image: { path: string; sha256: string; format?: 'raw' }) {
  const home = tempDir(prefix);
  const { configFile, restoreHome } = localAndSshHome(testEnv(), home, { name: 'img', ...image });
  if (image.format)
    writeFileSync(
      configFile,
      readFileSync(configFile, 'utf8').replace(/sha256: ([0-9a-f]{64}) \}/, 'sha256: $1, format: raw }'),
    );
  const services = createAppServices(join(home, 'data'), 'serve', {
    version: '0.0.0-test',
    configFile,
    reconcileIntervalMs: 0,
  });
  const call = async <T>(channel: string, input?: unknown): Promise<T> => {
    const envelope: Envelope = await services.router.invoke(channel, input);
    if (!envelope.ok) throw Object.assign(new Error(envelope.error.message), { name: envelope.error.name });
    return envelope.value as T;
  };
  const close = async (): Promise<void> => {
    await services.close();
    restoreHome();
  };
  return { home, services, call, close };
}

/** What {@link backend} gives a test. */
export type Backend = Awaited<ReturnType<typeof backend>>;

/** Waits for a launch task to reach `step` (or end); returns the task as it is then. */
export async function taskAt(services: AppServices, taskId: string, steps: string[], ms = 120_000): Promise<Task> {
  return waitFor(
    `task ${taskId} to reach ${steps.join('/')}`,
    ms,
    () => {
      const t = services.app.tasks.get(taskId);
      if (!t) return undefined;
      if (t.state !== 'running' && t.state !== 'queued') return t;
      return t.step !== undefined && steps.includes(t.step) ? t : undefined;
    },
    20,
  );
}

/** The pids of the sessions the test sshd forked (its children), not the listener itself. */
export function sshdSessions(): number[] {
  const master = Number(readFileSync(join(testEnv().EGRESS_TEST_STATE, 'ssh', 'sshd.pid'), 'utf8').trim());
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === master;
      } catch {
        return false;
      }
    });
}

/** The SHA-256 of a volume of the test pool, read through `client`. */
export async function sha256OfVolume(client: LibvirtClient, name: string): Promise<string> {
  const vol = await findVolume(client, await testPool(client), name);
  if (!vol) throw new Error(`volume ${name} is not in the pool`);
  const hash = createHash('sha256');
  await client.downloadVolume(vol, new Writable({ write: (c: Buffer, _e, cb) => (hash.update(c), cb()) }));
  return hash.digest('hex');
}
