import { spawn } from 'node:child_process';
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import * as fsp from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type AtomicFs, writeFileAtomic } from '../../../electron/services/config/atomic-write.js';
import { ConfigNotReplacedError, ConfigStore } from '../../../electron/services/config/config-store.js';
import { defaultConfig } from '../../../electron/services/config/default-config.js';
import { ConfigInvalidError, serializeConfig } from '../../../electron/services/config/document.js';
import { validateProviderConfig } from '../../../shared/config.js';
import { distModule } from '../../support/dist.js';
import { tempDir } from '../../support/temp-dir.js';

function tmp(): string {
  return tempDir('egress-store-');
}

describe('writeFileAtomic', () => {
  it('writes with mode 0600 and leaves no temporary file', async () => {
    const dir = tmp();
    const file = join(dir, 'config.yaml');
    await writeFileAtomic(file, 'a: 1\n');
    expect(readFileSync(file, 'utf8')).toBe('a: 1\n');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['config.yaml']);
  });

  it('keeps the old file when writing the new one fails midway', async () => {
    const dir = tmp();
    const file = join(dir, 'config.yaml');
    writeFileSync(file, 'old\n');
    const failing: AtomicFs = {
      ...fsp,
      open: (async (path: string, flags: string, mode?: number) => {
        const handle = await fsp.open(path, flags, mode);
        if (flags !== 'wx') return handle;
        return Object.assign(Object.create(handle) as object, {
          writeFile: async (data: string) => {
            await handle.writeFile(data.slice(0, 2));
            throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
          },
          sync: () => handle.sync(),
          close: () => handle.close(),
        });
      }) as AtomicFs['open'],
    };
    await expect(writeFileAtomic(file, 'new content\n', { fs: failing })).rejects.toThrow(/ENOSPC/);
    expect(readFileSync(file, 'utf8')).toBe('old\n');
    expect(readdirSync(dir)).toEqual(['config.yaml']);
  });

  it('keeps the old file when the rename fails', async () => {
    const dir = tmp();
    const file = join(dir, 'config.yaml');
    writeFileSync(file, 'old\n');
    const failing: AtomicFs = { ...fsp, rename: async () => Promise.reject(new Error('EXDEV')) };
    await expect(writeFileAtomic(file, 'new\n', { fs: failing })).rejects.toThrow('EXDEV');
    expect(readFileSync(file, 'utf8')).toBe('old\n');
    expect(readdirSync(dir)).toEqual(['config.yaml']);
  });

  it('leaves the old or the new file whole when the writing process is killed', async () => {
    const dir = tmp();
    const file = join(dir, 'config.yaml');
    const a = `${'a'.repeat(4 * 1024 * 1024)}\n`;
    const b = `${'b'.repeat(4 * 1024 * 1024)}\n`;
    writeFileSync(file, a);
    const script = `
      import { writeFileAtomic } from ${JSON.stringify(distModule('electron/services/config/atomic-write.ts'))};
      const a = 'a'.repeat(4 * 1024 * 1024) + '\\n', b = 'b'.repeat(4 * 1024 * 1024) + '\\n';
      process.stdout.write('ready\\n');
      for (let i = 0; ; i++) await writeFileAtomic(${JSON.stringify(file)}, i % 2 ? a : b);
    `;
    for (let round = 0; round < 5; round++) {
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
      await new Promise((r) => setTimeout(r, 30 + round * 37));
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      const content = readFileSync(file, 'utf8');
      expect(content === a || content === b, `round ${round}: the file must be whole`).toBe(true);
    }
  });
});

describe('ConfigStore', () => {
  it('writes the default config on first start and loads it back', async () => {
    const dir = tmp();
    const store = new ConfigStore(join(dir, 'home', 'config.yaml'));
    const first = await store.loadOrCreate();
    expect(first.created).toBe(true);
    expect(first.config).toEqual(defaultConfig());
    expect(validateProviderConfig(first.config).ok).toBe(true);
    expect(statSync(join(dir, 'home')).mode & 0o777).toBe(0o700);
    const second = await store.loadOrCreate();
    expect(second).toEqual({ config: defaultConfig(), created: false });
  });

  it('the default config names no image it cannot vouch for', () => {
    expect(defaultConfig().kvm?.images).toEqual({});
    expect(defaultConfig().kvm?.hosts).toEqual([{ name: 'local', address: 'local' }]);
    expect(Object.keys(defaultConfig().kvm?.machineTypes ?? {})).toEqual(['small', 'medium']);
  });

  it('refuses to save an invalid config, leaving the file as it was', async () => {
    const dir = tmp();
    const file = join(dir, 'config.yaml');
    const store = new ConfigStore(file);
    await store.loadOrCreate();
    const before = readFileSync(file, 'utf8');
    const bad = defaultConfig();
    bad.kvm!.hosts.push({ name: 'local', address: 'local' });
    await expect(store.save(bad)).rejects.toBeInstanceOf(ConfigInvalidError);
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('never overwrites a file on disk that does not validate', async () => {
    const dir = tmp();
    const file = join(dir, 'config.yaml');
    writeFileSync(file, 'type: kvm\nkvm:\n  hosts: [ { name: edge, adress: typo } ]\n');
    const before = readFileSync(file, 'utf8');
    const store = new ConfigStore(file);
    await expect(store.loadOrCreate()).rejects.toBeInstanceOf(ConfigInvalidError);
    await expect(store.save(defaultConfig())).rejects.toBeInstanceOf(ConfigNotReplacedError);
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('saves a valid config canonically', async () => {
    const dir = tmp();
    const file = join(dir, 'config.yaml');
    const store = new ConfigStore(file);
    await store.loadOrCreate();
    const next = defaultConfig();
    next.kvm!.hosts.push({ name: 'edge-a', address: '203.0.113.10', bridge: 'br0' });
    await store.save(next);
    expect(readFileSync(file, 'utf8')).toBe(serializeConfig(next));
    expect(await store.load()).toEqual(next);
  });
});
