/**
 * The whole backend (createAppServices: config file, app service, tasks, handlers,
 * router) over the provider fixture's two in-memory libvirt hosts.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type AppServices, createAppServices } from '../../../electron/ipc/app-services.js';
import type { FleetAssembly, HostDirectory } from '../../../electron/services/app/fleet-assembly.js';
import type { Probe } from '../../../electron/services/app/fleet-health.js';
import type { StatsClock } from '../../../electron/services/app/fleet-stats.js';
import { serializeConfig } from '../../../electron/services/config/document.js';
import { ImageCache } from '../../../electron/services/images/image-cache.js';
import type { ProviderConfig } from '../../../shared/config.js';
import type { HostStatus } from '../../../shared/hosts.js';
import type { EventName, EventPayload } from '../../../shared/ipc.js';
import type { Task } from '../../../shared/tasks.js';
import { type Fixture, fixture } from '../provider/provider-fixture.js';
import { tempDir } from '../../support/temp-dir.js';

export interface AppFixture {
  services: AppServices;
  fx: Fixture;
  dataDir: string;
  configFile: string;
  config: ProviderConfig;
  events: Array<{ event: EventName; payload: unknown }>;
  /** Calls a channel through the router and returns the value (throws the envelope's error). */
  call(channel: string, input?: unknown): Promise<unknown>;
  /** The raw envelope. */
  invoke(channel: string, input?: unknown): Promise<unknown>;
  /** Waits for a task to finish. */
  finished(taskId: string): Promise<Task>;
  eventsOf<E extends EventName>(event: E): EventPayload<E>[];
  close(): Promise<void>;
}

export function fakeHostDirectory(fx: Fixture): HostDirectory {
  const status = (name: string): HostStatus => ({
    name,
    address: name === 'edge-a' ? 'local' : `${name}.example`,
    via: `fake:${name}`,
    state: 'connected',
  });
  return {
    statuses: () => [...fx.hosts.keys()].map(status),
    status,
    info: async (name) => {
      const h = fx.hosts.get(name)!;
      return {
        hostname: name,
        libvirtVersion: '9.0.0',
        hypervisor: 'QEMU',
        hypervisorVersion: '7.2.0',
        cpuModel: 'x86_64',
        cpus: 4,
        memoryBytes: 16 * 1024 ** 3,
        freeMemoryBytes: h.freeMemoryBytes,
        kvm: true,
        pools: [{ name: 'default', active: true, capacityBytes: 100 * 1024 ** 3, availableBytes: 90 * 1024 ** 3 }],
        networks: [{ name: 'default', active: true }],
        domainCount: h.domains.size,
      };
    },
    load: async (name) => {
      const h = fx.hosts.get(name)!;
      const pools = [{ name: 'default', active: true, capacityBytes: 100 * 1024 ** 3, availableBytes: 90 * 1024 ** 3 }];
      return {
        name,
        at: Date.now(),
        cpus: 4,
        memoryBytes: 16 * 1024 ** 3,
        freeMemoryBytes: h.freeMemoryBytes,
        availableMemoryBytes: h.freeMemoryBytes,
        pools,
      };
    },
    trust: async () => {
      throw new Error('fake hosts have no host keys');
    },
    unlock: async () => {
      throw new Error('fake hosts have no encrypted keys');
    },
    sshSettings: async () => {
      throw new Error('fake hosts are not reached over SSH');
    },
    onStatus: () => () => undefined,
  };
}

/** The fixture's proxies have made-up addresses: a health probe must never go to the network. */
const noProbe: Probe = async () => ({ ok: false, latencyMs: 0, error: 'the test probes no proxy' });

export function appFixture(
  options: { fx?: Fixture; hosts?: HostDirectory; statsClock?: StatsClock; probe?: Probe; autoBake?: boolean } = {},
): AppFixture {
  const fx = options.fx ?? fixture();
  const dataDir = tempDir('egress-app-');
  const configFile = join(dataDir, 'config.yaml');
  const config: ProviderConfig = {
    type: 'kvm',
    kvm: {
      hosts: [
        { name: 'edge-a', address: 'local' },
        { name: 'edge-b', address: 'edge-b.example' },
      ],
      machineTypes: { small: { vcpus: 1, memoryMiB: 512, diskGiB: 10 } },
      images: { img: { url: 'file:///images/img.qcow2', sha256: fx.image.sha256 } },
      defaults: { machineType: 'small', image: 'img' },
    },
  };
  writeFileSync(configFile, serializeConfig(config));
  const hosts = options.hosts ?? fakeHostDirectory(fx);
  let closed = 0;
  const openBackend = (resolved: FleetAssembly['config']): FleetAssembly => ({
    config: resolved,
    provider: fx.provider,
    apiFor: async (name) => fx.hosts.get(name)!,
    hosts,
    images: {
      ensure: async () => ({ ...fx.image }),
      list: async () => [
        { sha256: fx.image.sha256, format: 'qcow2', path: fx.image.path, size: fx.image.size, lastUsed: new Date(0) },
      ],
      partials: async () => [],
      // The real cache in the fixture's data directory: what it downloads comes from a server in the test.
      ensureBySha512: (image, o) => new ImageCache({ dir: join(dataDir, 'images') }).ensureBySha512(image, o),
    },
    credentials: fx.credentials,
    close: async () => void closed++,
  });
  const services = createAppServices(dataDir, 'serve', {
    version: '1.2.3',
    configFile,
    openBackend,
    reconcileIntervalMs: 0,
    probe: options.probe ?? noProbe,
    ...(options.autoBake ? {} : { autoBake: false as const }),
    ...(options.statsClock ? { statsClock: options.statsClock } : {}),
  });
  const events: AppFixture['events'] = [];
  services.app.subscribe((event, payload) => events.push({ event, payload }));
  const invoke = (channel: string, input?: unknown) => services.router.invoke(channel, input);
  return {
    services,
    fx,
    dataDir,
    configFile,
    config,
    events,
    invoke,
    call: async (channel, input) => {
      const envelope = await services.router.invoke(channel, input);
      if (!envelope.ok)
        throw Object.assign(new Error(envelope.error.message), {
          name: envelope.error.name,
          issues: envelope.error.issues,
        });
      return envelope.value;
    },
    finished: (taskId) => services.app.tasks.wait(taskId),
    eventsOf: <E extends EventName>(event: E) =>
      events.filter((e) => e.event === event).map((e) => e.payload as EventPayload<E>),
    close: () => services.close(),
  };
}
