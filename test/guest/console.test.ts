/**
 * The guest lane for the serial console: a proxy launched through the real backend (the
 * router and app service of `egress-desk serve` and the window) on the real guest image;
 * its console opened through console:open while it boots, the guest's getty reached
 * (`login:`), a newline written and the prompt seen again. Against the real daemon: a
 * second open is refused as busy (SAFE), `force` takes the console over and the first
 * session is told. The console in the app (the inspector's Console tab, in Chromium) is
 * driven by test/guest/browser-launch.test.ts. Everything created is removed, even on failure.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppServices, createAppServices } from '../../electron/ipc/app-services.js';
import type { LibvirtClient } from '../../electron/libvirt/index.js';
import { instanceId } from '../../electron/services/provider/kvm/names.js';
import { PROBE_NETNS_ENV } from '../../electron/services/provider/kvm/port-probe.js';
import type { ConsoleClosed, ConsoleOpen } from '../../shared/console.js';
import type { Envelope } from '../../shared/ipc.js';
import type { Task } from '../../shared/tasks.js';
import { guestConfig, guestImage } from '../support/guest.js';
import { removeProxy, systemClient } from '../support/libvirt.js';
import { testEnv } from '../support/env.js';
import { waitFor as poll } from '../support/wait.js';
import { tempDir } from '../support/temp-dir.js';

const env = testEnv();
const NAME = 'egtest-con-1';
let client: LibvirtClient;
let services: AppServices | undefined;
const output = new Map<string, string>();
const closed: ConsoleClosed[] = [];
const savedProbeEnv = process.env[PROBE_NETNS_ENV];

async function call<T>(channel: string, input?: unknown): Promise<T> {
  const envelope: Envelope = await services!.router.invoke(channel, input);
  if (!envelope.ok) throw Object.assign(new Error(envelope.error.message), { name: envelope.error.name });
  return envelope.value as T;
}

/** Console output is checked every 500 ms. */
const waitFor = <T>(what: string, ms: number, probe: () => Promise<T | undefined> | T | undefined) =>
  poll(what, ms, probe, 500);

const prompts = (session: string) => (output.get(session) ?? '').match(/login: /g)?.length ?? 0;

beforeAll(async () => {
  const home = tempDir('egress-con-');
  const configFile = join(home, 'config.yaml');
  writeFileSync(configFile, guestConfig(env, guestImage()));
  // The readiness probe reaches the guest from inside the test namespace only.
  process.env[PROBE_NETNS_ENV] = env.EGRESS_TEST_NETNS;
  client = await systemClient();
  services = createAppServices(join(home, 'data'), 'serve', {
    version: '0.0.0-test',
    configFile,
    reconcileIntervalMs: 0,
  });
  services.app.subscribe((event, payload) => {
    if (event === 'console:data') {
      const p = payload as { session: string; data: string };
      output.set(p.session, (output.get(p.session) ?? '') + p.data);
    } else if (event === 'console:closed') closed.push(payload as ConsoleClosed);
  });
}, 20 * 60_000);

afterAll(async () => {
  await services?.close();
  if (savedProbeEnv === undefined) Reflect.deleteProperty(process.env, PROBE_NETNS_ENV);
  else process.env[PROBE_NETNS_ENV] = savedProbeEnv;
  if (client) {
    await removeProxy(client, NAME);
    await client.close();
  }
}, 120_000);

describe('the serial console of a real guest, through the backend', () => {
  it(
    'shows the boot and the getty, takes input, refuses a second holder, is taken over with force',
    async () => {
      const { taskId } = await call<{ taskId: string }>('proxies:launch', { name: NAME, allow: ['192.168.150.0/24'] });
      const launched = services!.app.tasks.wait(taskId);
      const t0 = Date.now();
      // Opened as soon as the domain runs (the launch is still waiting for the proxy).
      const first = await waitFor('the console to open', 10 * 60_000, async () => {
        const task = services!.app.tasks.get(taskId);
        if (task && task.state === 'failed') throw new Error(`launch failed: ${JSON.stringify(task.error)}`);
        return call<ConsoleOpen>('console:open', { name: NAME });
      });
      expect(first).toMatchObject({ host: 'local', domain: instanceId(NAME) });
      console.log(`console lane: console open ${((Date.now() - t0) / 1000).toFixed(1)} s after launch`);

      await waitFor('a login prompt on ttyS0', 8 * 60_000, () => (prompts(first.session) > 0 ? true : undefined));
      const boot = output.get(first.session)!;
      console.log(
        `console lane: login prompt after ${((Date.now() - t0) / 1000).toFixed(1)} s; last output:\n${boot.slice(-400)}`,
      );
      // The kernel (console=ttyS0) or systemd, then the getty: what a person sees while it boots.
      expect(boot).toMatch(/Linux|systemd|Debian|cloud-init/);
      expect(boot).not.toContain('\uFFFD');

      // Enter at the login prompt: agetty asks again.
      const before = prompts(first.session);
      await call('console:write', { session: first.session, data: '\r' });
      await waitFor('the prompt again after a newline', 120_000, () =>
        prompts(first.session) > before ? true : undefined,
      );

      // SAFE: the real daemon refuses a second holder, and the error asks the question.
      await expect(call('console:open', { name: NAME })).rejects.toMatchObject({
        name: 'ConsoleBusyError',
        message: expect.stringMatching(/^another client holds the console of egtest-con-1: take it over\?/),
      });

      // FORCE: the second session gets the console, the first is told why it ended.
      const second = await call<ConsoleOpen>('console:open', { name: NAME, force: true });
      const ended = await waitFor('the first session to close', 60_000, () =>
        closed.find((c) => c.session === first.session),
      );
      console.log(`console lane: first session closed by the takeover: ${JSON.stringify(ended)}`);
      expect(ended.cause).toBe('ended');
      await call('console:write', { session: second.session, data: '\r' });
      await waitFor('the prompt on the second session', 120_000, () =>
        prompts(second.session) > 0 ? true : undefined,
      );

      expect(await call('console:close', { session: second.session })).toEqual({ closed: true });
      expect(closed.find((c) => c.session === second.session)).toEqual({
        session: second.session,
        cause: 'requested',
        reason: 'closed',
      });

      // The launch finishes on its own (the proxy answers).
      const task: Task = await launched;
      console.log(`console lane: launch ${task.state} after ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      expect(task.state).toBe('succeeded');
    },
    15 * 60_000,
  );

  it(
    'deletes the proxy',
    async () => {
      const del = await call<{ taskId: string }>('proxies:delete', { name: NAME, confirm: true });
      expect((await services!.app.tasks.wait(del.taskId)).state).toBe('succeeded');
    },
    5 * 60_000,
  );
});
