/** A provider over two in-memory hosts, a fake image cache and an in-memory credentials store. */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type KVMConfig, withDefaults } from '../../../shared/config.js';
import { MemoryCredentialsStore } from '../../support/memory-credentials.js';
import type { ProviderDeps } from '../../../electron/services/provider/kvm/context.js';
import type { LaunchedBy } from '../../../shared/fleet-meta.js';
import { KvmProvider } from '../../../electron/services/provider/kvm/provider.js';
import type { PortProbe } from '../../../electron/services/provider/kvm/readiness.js';
import { FakeHost, type FakeHostOptions, type FakeSnapshot, fakeQcow2 } from '../../support/fake-libvirt.js';
import { tempDir } from '../../support/temp-dir.js';

export interface Fixture {
  provider: KvmProvider;
  hosts: Map<string, FakeHost>;
  a: FakeHost;
  b: FakeHost;
  credentials: MemoryCredentialsStore;
  image: { path: string; size: number; sha256: string };
  imageCalls: { count: number; fail?: Error };
  probe: { open: boolean; calls: string[] };
  snapshot: () => Record<string, FakeSnapshot>;
  /** Another provider over the same hosts, credentials and image: someone else's workstation. */
  providerAs: (identity: LaunchedBy) => KvmProvider;
}

export function fixture(
  options: { hosts?: FakeHostOptions[]; config?: Partial<KVMConfig>; deps?: Partial<ProviderDeps> } = {},
): Fixture {
  const dir = tempDir('egress-provider-');
  const bytes = fakeQcow2(16 * 1024 * 1024);
  const path = join(dir, 'image.qcow2');
  writeFileSync(path, bytes);
  const image = { path, size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
  const hostOptions = options.hosts ?? [
    { name: 'edge-a', freeMemoryBytes: 4 * 1024 ** 3 },
    { name: 'edge-b', freeMemoryBytes: 12.3 * 1024 ** 3 },
  ];
  const hosts = new Map(hostOptions.map((h) => [h.name, new FakeHost(h)]));
  const config = withDefaults({
    hosts: hostOptions.map((h) => ({
      name: h.name,
      address: h.name === 'edge-a' ? 'local' : `${h.name}.example`,
      pool: 'default',
      network: 'default',
      domainType: 'auto' as const,
    })),
    machineTypes: { small: { vcpus: 1, memoryMiB: 512, diskGiB: 10 } },
    images: { img: { url: 'file:///images/img.qcow2', sha256: image.sha256 } },
    defaults: { machineType: 'small', image: 'img' },
    ...options.config,
  });
  const credentials = new MemoryCredentialsStore();
  const imageCalls: Fixture['imageCalls'] = { count: 0 };
  const probe = { open: true, calls: [] as string[] };
  const portProbe: PortProbe = async (_host, address, port) => {
    probe.calls.push(`${address}:${port}`);
    return probe.open;
  };
  let n = 0;
  const make = (more: Partial<ProviderDeps>) =>
    new KvmProvider({
      config,
      apiFor: async (name) => {
        const h = hosts.get(name);
        if (!h) throw new Error(`no host ${name}`);
        if (h.down) throw new Error(`connect ECONNREFUSED (${name})`);
        return h;
      },
      images: {
        ensure: async () => {
          imageCalls.count++;
          if (imageCalls.fail) throw imageCalls.fail;
          return image;
        },
      },
      credentials,
      probe: portProbe,
      generateCredentials: () => ({ username: 'egress', password: `generated-${++n}` }),
      readinessIntervalMs: 10,
      identity: { user: 'tester', workstation: 'ws-1' },
      ...options.deps,
      ...more,
    });
  const provider = make({});
  const snapshot = () => Object.fromEntries([...hosts].map(([name, h]) => [name, h.snapshot()]));
  return {
    providerAs: (identity) => make({ identity }),
    provider,
    hosts,
    a: hosts.get('edge-a')!,
    b: hosts.get(hostOptions[1]?.name ?? 'edge-b')!,
    credentials,
    image,
    imageCalls,
    probe,
    snapshot,
  };
}
