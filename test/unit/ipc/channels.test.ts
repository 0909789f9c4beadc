/** Every channel over the real backend (app service, tasks, router) on two in-memory libvirt hosts. */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { serializeConfig } from '../../../electron/services/config/document.js';
import { LAUNCH_STEPS } from '../../../electron/services/provider/kvm/errors.js';
import { MASK } from '../../../shared/proxies.js';
import type { Task } from '../../../shared/tasks.js';
import { fixture } from '../provider/provider-fixture.js';
import { type AppFixture, appFixture } from './app-fixture.js';

let app: AppFixture;
afterEach(async () => {
  await app?.close();
});

async function launch(name: string, extra: Record<string, unknown> = {}): Promise<Task> {
  const { taskId } = (await app.call('proxies:launch', { name, ...extra })) as { taskId: string };
  return app.finished(taskId);
}

describe('channels: hosts, machine types, images', () => {
  it('hosts:list gives every host with its facts', async () => {
    app = appFixture();
    const hosts = (await app.call('hosts:list')) as Array<{
      name: string;
      state: string;
      info?: { hypervisor: string };
    }>;
    expect(hosts.map((h) => [h.name, h.state, h.info?.hypervisor])).toEqual([
      ['edge-a', 'connected', 'QEMU'],
      ['edge-b', 'connected', 'QEMU'],
    ]);
  });

  it("hosts:load answers the host's figures now through the router, and refuses an unknown host", async () => {
    app = appFixture();
    expect(await app.call('hosts:load', { name: 'edge-b' })).toMatchObject({
      name: 'edge-b',
      cpus: 4,
      pools: [{ name: 'default' }],
    });
    await expect(app.call('hosts:load', { name: 'nope' })).rejects.toMatchObject({ name: 'UnknownEntryError' });
    expect(await app.invoke('hosts:load', { name: '' })).toMatchObject({
      ok: false,
      error: { name: 'ValidationError' },
    });
  });

  it('hosts:trust refuses an unknown host name', async () => {
    app = appFixture();
    await expect(
      app.call('hosts:trust', { host: 'nope', fingerprint: `SHA256:${'A'.repeat(43)}` }),
    ).rejects.toMatchObject({ name: 'UnknownEntryError' });
  });

  it('machineTypes:list and images:list come from the config, with cache state', async () => {
    app = appFixture();
    expect(await app.call('machineTypes:list')).toEqual([
      { name: 'small', vcpus: 1, memoryMiB: 512, diskGiB: 10, isDefault: true },
    ]);
    expect(await app.call('images:list')).toEqual([
      expect.objectContaining({
        name: 'img',
        sha256: app.fx.image.sha256,
        format: 'qcow2',
        isDefault: true,
        cache: 'cached',
        sizeBytes: app.fx.image.size,
      }),
    ]);
  });

  it('images:pull runs as a task', async () => {
    app = appFixture();
    const { taskId } = (await app.call('images:pull', { name: 'img' })) as { taskId: string };
    const task = await app.finished(taskId);
    expect(task).toMatchObject({
      state: 'succeeded',
      kind: 'images:pull',
      target: 'img',
      result: { sha256: app.fx.image.sha256 },
    });
    await expect(app.call('images:pull', { name: 'nope' })).rejects.toMatchObject({ name: 'UnknownEntryError' });
  });
});

describe('channels: proxies', () => {
  it('proxies:launch runs as a task through every step and ends succeeded', async () => {
    app = appFixture();
    const task = await launch('p1');
    expect(task.state).toBe('succeeded');
    expect(task.steps.map((s) => s.name)).toEqual([...LAUNCH_STEPS]);
    expect(task.steps.every((s) => s.state === 'done')).toBe(true);
    expect(task.result).toMatchObject({ created: true, proxy: { name: 'p1', state: 'running' } });
    // The URL holds the password: it is not in the task (nor in any event).
    expect(JSON.stringify(task)).not.toContain('generated-');
    expect(JSON.stringify(app.events)).not.toContain('generated-');
    // The updates told the same story, in order.
    const updates = app.eventsOf('task:update').filter((t) => t.id === task.id);
    expect(updates[0]!.state).toBe('queued');
    expect(updates.at(-1)!.state).toBe('succeeded');
    const seen = [...new Set(updates.map((t) => t.step).filter(Boolean))];
    expect(seen).toEqual([...LAUNCH_STEPS]);
    // And the fleet changed: libvirt's lifecycle events came through as proxy:changed.
    expect(
      app
        .eventsOf('proxy:changed')
        .some((e) => e.name === 'p1' && e.event === 'STARTED' && !e.removed && e.proxy.state === 'running'),
    ).toBe(true);
  });

  it('proxies:list lists the fleet with per-host status', async () => {
    app = appFixture();
    await launch('p1');
    await launch('p2', { host: 'edge-a' });
    const fleet = (await app.call('proxies:list')) as {
      proxies: Array<{ name: string; host: string; addresses: Array<{ source: string }> }>;
      hosts: Array<{ host: string; ok: boolean }>;
    };
    expect(fleet.proxies.map((p) => p.name)).toEqual(['p1', 'p2']);
    expect(fleet.proxies.find((p) => p.name === 'p2')!.host).toBe('edge-a');
    expect(fleet.proxies[0]!.addresses[0]!.source).toBe('lease');
    expect(fleet.hosts.map((h) => [h.host, h.ok])).toEqual([
      ['edge-a', true],
      ['edge-b', true],
    ]);
  });

  it('proxies:inspect gives metadata, XML, addresses and the seed with the password masked', async () => {
    app = appFixture();
    await launch('p1');
    const password = (await app.fx.credentials.get('p1'))!.password;
    const inspection = (await app.call('proxies:inspect', { name: 'p1' })) as {
      metadata: { name: string; machineType: string };
      domainXml: string;
      addresses: Array<{ source: string }>;
      seed: { userData: string; metaData: string; vendorData: string; exact: boolean };
      hasCredentials: boolean;
    };
    expect(inspection.metadata).toMatchObject({ name: 'p1', machineType: 'small' });
    expect(inspection.domainXml).toContain('urn:egress-proxies:kvm:v1');
    expect(inspection.addresses.length).toBeGreaterThan(0);
    expect(inspection.hasCredentials).toBe(true);
    expect(inspection.seed.exact).toBe(true);
    expect(inspection.seed.userData).toContain('#cloud-config');
    expect(inspection.seed.userData).toContain(MASK);
    expect(inspection.seed.metaData).toContain('instance-id');
    expect(JSON.stringify(inspection)).not.toContain(password);
  });

  it('proxies:url is the one channel that returns the credentials', async () => {
    app = appFixture();
    await launch('p1');
    const { url } = (await app.call('proxies:url', { name: 'p1' })) as { url: string };
    expect(url).toMatch(/^http:\/\/egress:generated-\d+@192\.168\.122\.\d+:3128$/);
  });

  it('proxies:stop and proxies:start run as tasks', async () => {
    app = appFixture();
    await launch('p1');
    const stop = await app.finished(((await app.call('proxies:stop', { name: 'p1' })) as { taskId: string }).taskId);
    expect(stop).toMatchObject({ state: 'succeeded', result: { forced: false } });
    expect(Object.values(app.fx.snapshot()).flatMap((s) => Object.values(s.domains))).toEqual(['shutoff']);
    const start = await app.finished(((await app.call('proxies:start', { name: 'p1' })) as { taskId: string }).taskId);
    expect(start).toMatchObject({ state: 'succeeded', result: { alreadyRunning: false } });
  });

  it('proxies:delete needs confirm: true, then removes everything', async () => {
    app = appFixture();
    const empty = app.fx.snapshot();
    await launch('p1');
    const before = app.fx.snapshot();
    expect(await app.invoke('proxies:delete', { name: 'p1' })).toMatchObject({
      ok: false,
      error: { name: 'ValidationError' },
    });
    expect(app.fx.snapshot()).toEqual(before);
    const task = await app.finished(
      ((await app.call('proxies:delete', { name: 'p1', confirm: true })) as { taskId: string }).taskId,
    );
    expect(task.state).toBe('succeeded');
    const after = app.fx.snapshot();
    for (const host of Object.keys(after)) {
      expect(after[host]!.domains).toEqual(empty[host]!.domains);
      // Only the shared base volume stays (by design).
      expect(after[host]!.volumes.default!.every((v) => !v.startsWith('ep-'))).toBe(true);
    }
    expect(app.eventsOf('proxy:changed').some((e) => e.name === 'p1' && e.removed)).toBe(true);
    await expect(app.call('proxies:inspect', { name: 'p1' })).rejects.toMatchObject({ name: 'ProxyNotFoundError' });
  });

  it('a launch that fails ends failed with the step and the provider error', async () => {
    app = appFixture();
    app.fx.b.failOn('defineDomain');
    app.fx.a.failOn('defineDomain');
    const task = await launch('p1');
    expect(task.state).toBe('failed');
    expect(task.error).toMatchObject({
      name: 'LaunchError',
      step: 'define',
      message: expect.stringMatching(/step "define"/),
    });
  });

  it('cancelling a launch ends cancelled and rolls back (the hosts are as before)', async () => {
    const fx = fixture();
    app = appFixture({ fx });
    // A first launch and delete leaves the shared base volume, which a launch keeps by design.
    await launch('warm');
    await app.finished(
      ((await app.call('proxies:delete', { name: 'warm', confirm: true })) as { taskId: string }).taskId,
    );
    const before = fx.snapshot();
    let taskId = '';
    const off = app.services.app.subscribe((event, payload) => {
      const task = payload as Task;
      if (event === 'task:update' && task.id === taskId && task.step === 'seed' && task.cancellable) {
        void app.call('tasks:cancel', { id: taskId });
      }
    });
    taskId = ((await app.call('proxies:launch', { name: 'p1' })) as { taskId: string }).taskId;
    const task = await app.finished(taskId);
    off();
    expect(task.state).toBe('cancelled');
    expect(task.error?.message).toMatch(/cancelled/);
    expect(fx.snapshot()).toEqual(before);
    expect(await fx.credentials.get('p1')).toBeUndefined();
    expect(await app.call('tasks:cancel', { id: taskId })).toEqual({ cancelled: false });
  });
});

describe('channels: tasks', () => {
  it('tasks:list keeps every task, finished ones included (a reloaded window sees them)', async () => {
    app = appFixture();
    const t = await launch('p1');
    const list = (await app.call('tasks:list')) as Task[];
    expect(list.map((x) => [x.id, x.state, x.title])).toEqual([[t.id, 'succeeded', 'Launch p1']]);
    expect(list[0]!.started).toBeDefined();
    expect(list[0]!.finished).toBeDefined();
    await expect(app.call('tasks:cancel', { id: 'nope' })).rejects.toMatchObject({ name: 'TaskNotFoundError' });
  });
});

describe('channels: config', () => {
  it('config:export writes operator YAML and JSON', async () => {
    app = appFixture();
    const yaml = (await app.call('config:export', { format: 'operator' })) as { text: string; fileName: string };
    expect(yaml.text).toBe(serializeConfig(app.config));
    expect(yaml.fileName).toBe('egress-desk.yaml');
    const json = (await app.call('config:export', { format: 'json' })) as { text: string };
    expect(JSON.parse(json.text)).toEqual(app.config);
  });

  it('config:export pac is valid JavaScript that sends URLs through the ready proxies', async () => {
    app = appFixture();
    await launch('p1');
    await launch('p2');
    const { text } = (await app.call('config:export', { format: 'pac' })) as { text: string };
    const find = new Function(`${text}\nreturn FindProxyForURL;`)() as (url: string, host: string) => string;
    const answer = find('https://example.com/x', 'example.com');
    expect(answer).toMatch(/^PROXY 192\.168\.122\.\d+:3128; PROXY 192\.168\.122\.\d+:3128; DIRECT$/);
    expect(find('http://localhost/', 'localhost')).toBe('DIRECT');
    expect(find('http://intranet/', 'intranet')).toBe('DIRECT');
    expect(text).not.toContain('generated-');
  });

  it('config:export pac with no running proxy goes direct', async () => {
    app = appFixture();
    const { text } = (await app.call('config:export', { format: 'pac' })) as { text: string };
    const find = new Function(`${text}\nreturn FindProxyForURL;`)() as (url: string, host: string) => string;
    expect(find('https://example.com/', 'example.com')).toBe('DIRECT');
  });

  it('config:export proxy-list: one URL per line, credentials only when asked', async () => {
    app = appFixture();
    await launch('p1');
    await launch('p2');
    const plain = (await app.call('config:export', { format: 'proxy-list' })) as { text: string };
    const lines = plain.text.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line).toMatch(/^http:\/\/192\.168\.122\.\d+:3128$/);
    const secret = (await app.call('config:export', { format: 'proxy-list', withCredentials: true })) as {
      text: string;
    };
    for (const line of secret.text.trimEnd().split('\n'))
      expect(line).toMatch(/^http:\/\/egress:generated-\d+@192\.168\.122\.\d+:3128$/);
  });

  it('config:previewImport reports issues and a structured diff', async () => {
    app = appFixture();
    const next = structuredClone(app.config);
    next.kvm!.hosts = [next.kvm!.hosts[0]!, { name: 'edge-c', address: '10.0.0.3' }];
    next.kvm!.machineTypes.small = { vcpus: 2, memoryMiB: 512, diskGiB: 10 };
    next.kvm!.machineTypes.large = { vcpus: 4, memoryMiB: 4096 };
    next.kvm!.proxy = { port: 8888 };
    const preview = (await app.call('config:previewImport', { text: serializeConfig(next) })) as {
      ok: boolean;
      issues: unknown[];
      diff: {
        hosts: Array<{ kind: string; key: string }>;
        machineTypes: Array<{ kind: string; key: string }>;
        images: unknown[];
        fields: Array<{ kind: string; key: string; after?: unknown }>;
        unchanged: boolean;
      };
    };
    expect(preview.ok).toBe(true);
    expect(preview.issues).toEqual([]);
    expect(preview.diff.hosts).toEqual([
      expect.objectContaining({ kind: 'removed', key: 'edge-b' }),
      expect.objectContaining({ kind: 'added', key: 'edge-c' }),
    ]);
    expect(preview.diff.machineTypes.map((c) => [c.kind, c.key])).toEqual([
      ['changed', 'small'],
      ['added', 'large'],
    ]);
    expect(preview.diff.images).toEqual([]);
    expect(preview.diff.fields).toEqual([{ kind: 'added', key: 'kvm.proxy.port', after: 8888 }]);
    expect(preview.diff.unchanged).toBe(false);

    const same = (await app.call('config:previewImport', {
      text: serializeConfig(app.config, 'json'),
      syntax: 'json',
    })) as { ok: boolean; diff: { unchanged: boolean } };
    expect(same).toMatchObject({ ok: true, diff: { unchanged: true } });

    const invalid = (await app.call('config:previewImport', {
      text: 'type: kvm\nkvm:\n  hosts: []\n  machineTypes: {}\n',
    })) as { ok: boolean; issues: Array<{ path: string }> };
    expect(invalid.ok).toBe(false);
    expect(invalid.issues.map((i) => i.path)).toEqual(expect.arrayContaining(['kvm.hosts', 'kvm.machineTypes']));

    const broken = (await app.call('config:previewImport', { text: 'type: [kvm' })) as { ok: boolean; error?: string };
    expect(broken.ok).toBe(false);
    expect(broken.error).toMatch(/line \d+/);
  });

  it('config:import refuses invalid text and leaves the file unchanged', async () => {
    app = appFixture();
    const before = readFileSync(app.configFile, 'utf8');
    const result = await app.invoke('config:import', {
      text: 'type: kvm\nkvm:\n  hosts: []\n  machineTypes: {}\n',
      confirm: true,
    });
    expect(result).toMatchObject({
      ok: false,
      error: {
        name: 'ConfigInvalidError',
        issues: expect.arrayContaining([expect.objectContaining({ path: 'kvm.hosts' })]),
      },
    });
    expect(await app.invoke('config:import', { text: 'type: [kvm', confirm: true })).toMatchObject({
      ok: false,
      error: { name: 'ConfigReadError' },
    });
    expect(await app.invoke('config:import', { text: serializeConfig(app.config) })).toMatchObject({
      ok: false,
      error: { name: 'ValidationError' },
    });
    expect(readFileSync(app.configFile, 'utf8')).toBe(before);
  });

  it('config:import saves a valid config and the backend follows it', async () => {
    app = appFixture();
    const next = structuredClone(app.config);
    next.kvm!.machineTypes.large = { vcpus: 4, memoryMiB: 4096 };
    const result = (await app.call('config:import', { text: serializeConfig(next), confirm: true })) as {
      path: string;
      diff: { machineTypes: Array<{ kind: string; key: string }> };
    };
    expect(result.path).toBe(app.configFile);
    expect(result.diff.machineTypes).toEqual([expect.objectContaining({ kind: 'added', key: 'large' })]);
    expect(readFileSync(app.configFile, 'utf8')).toBe(serializeConfig(next));
    expect(((await app.call('machineTypes:list')) as Array<{ name: string }>).map((m) => m.name)).toEqual([
      'small',
      'large',
    ]);
  });
});
