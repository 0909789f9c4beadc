/**
 * The catalog edit channels (machineTypes:save/remove, images:save/remove, defaults:set)
 * and images:list's per-host presence, over the real backend (router, app service,
 * ConfigWrites.edit, config file) on the two in-memory libvirt hosts.
 */
import { readFileSync, statSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { HostDirectory } from '../../../electron/services/app/fleet-assembly.js';
import { parseConfigText } from '../../../electron/services/config/document.js';
import { baseVolumeName } from '../../../electron/services/provider/kvm/names.js';
import type { ProviderConfig } from '../../../shared/config.js';
import type { ImageView } from '../../../shared/images-view.js';
import { fixture } from '../provider/provider-fixture.js';
import { type AppFixture, appFixture, fakeHostDirectory } from './app-fixture.js';

let app: AppFixture;
afterEach(async () => {
  await app?.close();
});

const onDisk = (): ProviderConfig =>
  parseConfigText(readFileSync(app.configFile, 'utf8'), 'config.yaml') as ProviderConfig;
const SHA = 'c'.repeat(64);

describe('channels: catalog edits', () => {
  it('two edits at the same moment both land: config writes run one after another', async () => {
    app = appFixture();
    await Promise.all([
      app.call('machineTypes:save', { name: 'medium', vcpus: 2, memoryMiB: 2048, diskGiB: 20 }),
      app.call('machineTypes:save', { name: 'large', vcpus: 4, memoryMiB: 4096, diskGiB: 40 }),
      app.call('images:save', {
        name: 'other',
        url: 'file:///images/other.qcow2',
        sha256: 'c'.repeat(64),
        format: 'qcow2',
      }),
    ]);
    const onDisk = parseConfigText(readFileSync(app.configFile, 'utf8'), 'config.yaml') as ProviderConfig;
    expect(Object.keys(onDisk.kvm!.machineTypes!).sort()).toEqual(['large', 'medium', 'small']);
    expect(Object.keys(onDisk.kvm!.images!).sort()).toEqual(['img', 'other']);
  });

  it('machineTypes:save adds, edits and renames; the file and the list follow', async () => {
    app = appFixture();
    expect(await app.call('machineTypes:save', { name: 'medium', vcpus: 2, memoryMiB: 2048, diskGiB: 20 })).toEqual({
      path: app.configFile,
    });
    expect(onDisk().kvm!.machineTypes).toEqual({
      small: { vcpus: 1, memoryMiB: 512, diskGiB: 10 },
      medium: { vcpus: 2, memoryMiB: 2048, diskGiB: 20 },
    });
    expect(statSync(app.configFile).mode & 0o777).toBe(0o600);
    await app.call('machineTypes:save', {
      name: 'medium',
      previousName: 'medium',
      vcpus: 3,
      memoryMiB: 2048,
      diskGiB: 20,
    });
    // Renaming the default moves the default with it.
    await app.call('machineTypes:save', { name: 'tiny', previousName: 'small', vcpus: 1, memoryMiB: 256, diskGiB: 5 });
    expect(onDisk().kvm!.defaults).toEqual({ machineType: 'tiny', image: 'img' });
    expect(await app.call('machineTypes:list')).toEqual([
      { name: 'tiny', vcpus: 1, memoryMiB: 256, diskGiB: 5, isDefault: true },
      { name: 'medium', vcpus: 3, memoryMiB: 2048, diskGiB: 20, isDefault: false },
    ]);
  });

  it('refuses invalid input in the config file wording, and a duplicate, leaving the file unchanged', async () => {
    app = appFixture();
    const before = readFileSync(app.configFile, 'utf8');
    expect(await app.invoke('machineTypes:save', { name: 'bad', vcpus: 0, memoryMiB: 512, diskGiB: 1 })).toMatchObject({
      ok: false,
      error: { name: 'ValidationError', issues: [{ path: 'vcpus', message: 'must be at least 1 (got 0)' }] },
    });
    expect(
      await app.invoke('images:save', { name: 'x', url: 'ftp://h/x', sha256: SHA, format: 'qcow2' }),
    ).toMatchObject({
      ok: false,
      error: {
        name: 'ValidationError',
        issues: [{ path: 'url', message: 'must be a URL with scheme https, http, file (got "ftp")' }],
      },
    });
    expect(
      await app.invoke('machineTypes:save', { name: 'small', vcpus: 1, memoryMiB: 512, diskGiB: 1 }),
    ).toMatchObject({
      ok: false,
      error: {
        name: 'CatalogEditError',
        issues: [
          {
            path: 'kvm.machineTypes.small',
            field: 'name',
            message: 'a machine type named "small" already exists: choose another name, or edit that one',
          },
        ],
      },
    });
    expect(readFileSync(app.configFile, 'utf8')).toBe(before);
  });

  it('machineTypes:remove needs confirm, refuses the default, then removes after defaults:set', async () => {
    app = appFixture();
    await app.call('machineTypes:save', { name: 'medium', vcpus: 2, memoryMiB: 2048, diskGiB: 20 });
    expect(await app.invoke('machineTypes:remove', { name: 'small' })).toMatchObject({
      ok: false,
      error: { name: 'ValidationError' },
    });
    expect(await app.invoke('machineTypes:remove', { name: 'small', confirm: true })).toMatchObject({
      ok: false,
      error: {
        name: 'CatalogEditError',
        message: expect.stringContaining(
          'kvm.defaults.machineType: "small" is the default machine type: make another one the default first',
        ),
      },
    });
    expect(await app.invoke('defaults:set', { machineType: 'nope' })).toMatchObject({
      ok: false,
      error: { name: 'CatalogEditError', issues: [{ path: 'kvm.defaults.machineType' }] },
    });
    await app.call('defaults:set', { machineType: 'medium' });
    expect(onDisk().kvm!.defaults).toEqual({ machineType: 'medium', image: 'img' });
    await app.call('machineTypes:remove', { name: 'small', confirm: true });
    expect(Object.keys(onDisk().kvm!.machineTypes)).toEqual(['medium']);
    expect(await app.invoke('machineTypes:remove', { name: 'medium', confirm: true })).toMatchObject({
      ok: false,
      error: { name: 'CatalogEditError' },
    });
  });

  it('images:save and images:remove edit the images; the default image cannot be removed', async () => {
    app = appFixture();
    await app.call('images:save', { name: 'other', url: 'file:///images/other.raw', sha256: SHA, format: 'raw' });
    expect(onDisk().kvm!.images!.other).toEqual({ url: 'file:///images/other.raw', sha256: SHA, format: 'raw' });
    const listed = (await app.call('images:list')) as ImageView[];
    expect(listed.map((i) => [i.name, i.cache, i.isDefault])).toEqual([
      ['img', 'cached', true],
      ['other', 'absent', false],
    ]);
    expect(await app.invoke('images:remove', { name: 'img', confirm: true })).toMatchObject({
      ok: false,
      error: { name: 'CatalogEditError', issues: [{ path: 'kvm.defaults.image' }] },
    });
    await app.call('defaults:set', { image: 'other' });
    await app.call('images:remove', { name: 'img', confirm: true });
    expect(Object.keys(onDisk().kvm!.images!)).toEqual(['other']);
    expect(onDisk().kvm!.defaults).toEqual({ machineType: 'small', image: 'other' });
  });

  it('every edit is refused while a task runs, and accepted once it is done', async () => {
    app = appFixture();
    let release!: () => void;
    const blocker = app.services.app.tasks.run('Blocker', () => new Promise<void>((resolve) => (release = resolve)), {
      kind: 'images:pull',
    });
    const before = readFileSync(app.configFile, 'utf8');
    for (const [channel, input] of [
      ['machineTypes:save', { name: 'medium', vcpus: 2, memoryMiB: 2048, diskGiB: 20 }],
      ['images:save', { name: 'other', url: 'https://example.com/o.qcow2', sha256: SHA, format: 'qcow2' }],
      ['defaults:set', { machineType: 'small' }],
    ] as const) {
      expect(await app.invoke(channel, input)).toMatchObject({
        ok: false,
        error: { name: 'ConfigBusyError', message: expect.stringContaining('1 task is running (Blocker)') },
      });
    }
    expect(readFileSync(app.configFile, 'utf8')).toBe(before);
    release();
    await app.finished(blocker);
    await app.call('machineTypes:save', { name: 'medium', vcpus: 2, memoryMiB: 2048, diskGiB: 20 });
    expect(Object.keys(onDisk().kvm!.machineTypes)).toEqual(['small', 'medium']);
  });
});

describe('channels: per-host presence of images', () => {
  it('images:list says on which hosts the base volume is (yes, no), from each pool', async () => {
    app = appFixture();
    const { taskId } = (await app.call('proxies:launch', { name: 'p1', host: 'edge-b' })) as { taskId: string };
    expect((await app.finished(taskId)).state).toBe('succeeded');
    const [img] = (await app.call('images:list')) as ImageView[];
    expect(img!.hosts).toEqual([
      { host: 'edge-a', present: 'no', base: 'plain' },
      { host: 'edge-b', present: 'yes', volume: baseVolumeName(app.fx.image.sha256, 'qcow2'), base: 'plain' },
    ]);
  });

  it('a host whose connection failed, or whose pool cannot be listed, is unknown with the reason', async () => {
    const fx = fixture();
    const base = fakeHostDirectory(fx);
    const hosts: HostDirectory = {
      ...base,
      status: (name) =>
        name === 'edge-a'
          ? { ...base.status(name), state: 'error', message: 'connect ECONNREFUSED' }
          : { ...base.status(name), state: 'connecting' },
    };
    app = appFixture({ fx, hosts });
    // edge-b is not connected yet: it is asked (and connected), and answers.
    let [img] = (await app.call('images:list')) as ImageView[];
    expect(img!.hosts).toEqual([
      { host: 'edge-a', present: 'unknown', message: 'edge-a is error: connect ECONNREFUSED' },
      { host: 'edge-b', present: 'no', base: 'plain' },
    ]);
    expect(fx.a.calls.filter((c) => c.startsWith('listVolumes'))).toEqual([]);
    fx.b.down = true;
    [img] = (await app.call('images:list')) as ImageView[];
    expect(img!.hosts).toEqual([
      { host: 'edge-a', present: 'unknown', message: 'edge-a is error: connect ECONNREFUSED' },
      {
        host: 'edge-b',
        present: 'unknown',
        message: 'cannot list pool default on edge-b: host edge-b is down (connection refused)',
      },
    ]);
  });
});
