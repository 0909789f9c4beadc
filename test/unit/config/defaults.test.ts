import { describe, expect, it } from 'vitest';
import { DEFAULTS, type KVMConfig, validateProviderConfig, withDefaults } from '../../../shared/config.js';
import { validConfig } from './helpers.js';

function kvm(): KVMConfig {
  const result = validateProviderConfig(validConfig());
  if (!result.ok || !result.config.kvm) throw new Error('fixture must be valid');
  return result.config.kvm;
}

describe('withDefaults', () => {
  it('fills every documented default', () => {
    const minimal: KVMConfig = {
      hosts: [{ name: 'h', address: 'local' }],
      machineTypes: { m: { vcpus: 1, memoryMiB: 256 } },
      images: { i: { url: 'https://x.example/i.qcow2', sha256: 'a'.repeat(64) } },
    };
    const resolved = withDefaults(minimal);
    expect(resolved.hosts[0]).toEqual({
      name: 'h',
      address: 'local',
      socketPath: '/var/run/libvirt/libvirt-sock',
      pool: 'default',
      network: 'default',
      domainType: 'auto',
    });
    expect(resolved.machineTypes.m!.diskGiB).toBe(10);
    expect(resolved.images.i!.format).toBe('qcow2');
    expect(resolved.vendorData).toBe(DEFAULTS.vendorData);
    expect(resolved.vendorData).toMatch(/^#cloud-config\n/);
    expect(resolved.vendorData).toMatch(/packages:\n\s+- qemu-guest-agent/);
    // No runcmd: the proxy's user-data has one, and cloud-init keeps user-data's (see cloud-config.test.ts).
    expect(resolved.vendorData).not.toMatch(/^runcmd:/m);
    expect(resolved.proxy.port).toBe(3128);
  });

  it('keeps values that are set, and a bridge instead of the default network', () => {
    const resolved = withDefaults(kvm());
    const edge = resolved.hosts[1]!;
    expect(edge.bridge).toBe('br0');
    expect(edge.network).toBeUndefined();
    expect(edge.domainType).toBe('kvm');
    expect(resolved.machineTypes.small!.diskGiB).toBe(10);
    expect(resolved.machineTypes.medium!.diskGiB).toBe(10);
  });

  it('never mutates its input, deeply', () => {
    const input = kvm();
    const snapshot = structuredClone(input);
    const resolved = withDefaults(input);
    expect(input).toEqual(snapshot);
    // Changing the output must not reach the input either: no shared nested objects.
    resolved.hosts[0]!.pool = 'changed';
    resolved.machineTypes.small!.vcpus = 99;
    resolved.images['debian-12']!.url = 'changed';
    resolved.defaults.machineType = 'changed';
    expect(input).toEqual(snapshot);
  });

  it('works on a frozen config', () => {
    const input = kvm();
    const deepFreeze = (o: unknown): void => {
      if (o && typeof o === 'object') {
        Object.values(o).forEach(deepFreeze);
        Object.freeze(o);
      }
    };
    deepFreeze(input);
    expect(() => withDefaults(input)).not.toThrow();
  });
});
