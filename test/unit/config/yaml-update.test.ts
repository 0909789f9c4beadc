/** In-app edits keep the person's comments and layout: only what differs is rewritten (ConfigStore.update). */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigNotReplacedError, ConfigStore } from '../../../electron/services/config/config-store.js';
import { ConfigInvalidError, loadConfigFile } from '../../../electron/services/config/document.js';
import { updateYamlText } from '../../../electron/services/config/yaml-update.js';
import type { ProviderConfig } from '../../../shared/config.js';
import { tempDir } from '../../support/temp-dir.js';

const HAND_WRITTEN = `# Our egress fleet. Ask Ann before changing the hosts.
type: kvm
kvm:
  hosts:
    - name: local   # this workstation
      address: local
    - name: edge-a
      address: 203.0.113.10   # Frankfurt
  machineTypes:
    small: { vcpus: 1, memoryMiB: 512 }   # the usual one
  defaults:
    machineType: small
`;

function file(text: string, name = 'config.yaml'): string {
  const path = join(tempDir('egress-yaml-update-'), name);
  writeFileSync(path, text);
  return path;
}

describe('ConfigStore.update: edits in place', () => {
  it('keeps every comment and the untouched lines when a machine type is added and the default moved', async () => {
    const path = file(HAND_WRITTEN);
    const store = new ConfigStore(path);
    const config = await store.load();
    const next: ProviderConfig = structuredClone(config);
    next.kvm!.machineTypes = { ...next.kvm!.machineTypes, medium: { vcpus: 2, memoryMiB: 2048 } };
    next.kvm!.defaults = { machineType: 'medium' };
    await store.update(next);
    const text = readFileSync(path, 'utf8');
    for (const comment of [
      '# Our egress fleet. Ask Ann before changing the hosts.',
      '# this workstation',
      '# Frankfurt',
      '# the usual one',
    ])
      expect(text).toContain(comment);
    expect(text).toContain('small: { vcpus: 1, memoryMiB: 512 }');
    expect(await loadConfigFile(path)).toEqual(next);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('removes and changes entries, keeping the comments of what stays', async () => {
    const path = file(HAND_WRITTEN);
    const store = new ConfigStore(path);
    const next = structuredClone(await store.load());
    next.kvm!.hosts = [next.kvm!.hosts[0]!];
    next.kvm!.machineTypes!.small!.memoryMiB = 1024;
    await store.update(next);
    const text = readFileSync(path, 'utf8');
    expect(text).toContain('# Our egress fleet.');
    expect(text).toContain('# this workstation');
    expect(text).not.toContain('edge-a');
    expect(text).toContain('memoryMiB: 1024');
    expect(await loadConfigFile(path)).toEqual(next);
  });

  it('refuses an invalid config and a file that does not validate, changing nothing', async () => {
    const path = file(HAND_WRITTEN);
    const store = new ConfigStore(path);
    const bad = structuredClone(await store.load());
    bad.kvm!.hosts[1]!.name = 'local';
    await expect(store.update(bad)).rejects.toBeInstanceOf(ConfigInvalidError);
    expect(readFileSync(path, 'utf8')).toBe(HAND_WRITTEN);
    const broken = file('type: kvm\nkvm: { hosts: [] , nonsense: 1 }\n');
    await expect(new ConfigStore(broken).update(await store.load())).rejects.toBeInstanceOf(ConfigNotReplacedError);
    expect(readFileSync(broken, 'utf8')).toBe('type: kvm\nkvm: { hosts: [] , nonsense: 1 }\n');
  });

  it('keeps a .json config strict JSON', async () => {
    const path = file(
      JSON.stringify(
        {
          type: 'kvm',
          kvm: { hosts: [{ name: 'local', address: 'local' }], machineTypes: { small: { vcpus: 1, memoryMiB: 512 } } },
        },
        null,
        2,
      ),
      'config.json',
    );
    const store = new ConfigStore(path);
    const next = structuredClone(await store.load());
    next.kvm!.hosts.push({ name: 'edge-b', address: '192.0.2.8' });
    await store.update(next);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual(next);
  });

  it('updateYamlText: a document that is not a mapping is left to a fresh write', () => {
    expect(updateYamlText('- a\n- b\n', { type: 'kvm' })).toBeUndefined();
    expect(updateYamlText('a: [unclosed\n', { type: 'kvm' })).toBeUndefined();
    expect(updateYamlText('# only\na: 1\n', { a: 2 })).toBe('# only\na: 2\n');
  });
});
