/** Real libvirt for tests: a client on the test environment's socket, and cleanup that always runs. */
import { execFileSync } from 'node:child_process';
import {
  type DomainRef,
  DomainDestroy,
  DomainUndefine,
  LibvirtClient,
  type StoragePoolRef,
  findDomainByName,
  findVolume,
} from '../../electron/libvirt/index.js';
import { instanceIds, instanceVolumes } from '../../electron/services/provider/kvm/names.js';
import { LocalSocketDialer } from '../../electron/transport/index.js';
import { testEnv } from './env.js';

export async function systemClient(uri = 'qemu:///system'): Promise<LibvirtClient> {
  return LibvirtClient.connect(new LocalSocketDialer(testEnv().EGRESS_TEST_SOCKET), { uri });
}

export async function testPool(client: LibvirtClient): Promise<StoragePoolRef> {
  return client.call('STORAGE_POOL_LOOKUP_BY_NAME', { name: testEnv().EGRESS_TEST_POOL });
}

/** Destroys (if running) and undefines a domain; no error when it is already gone. */
export async function removeDomain(client: LibvirtClient, name: string): Promise<void> {
  const dom: DomainRef | null = await findDomainByName(client, name);
  if (!dom) return;
  await client.call('DOMAIN_DESTROY_FLAGS', { dom, flags: DomainDestroy.DEFAULT }).catch(() => undefined);
  await client
    .call('DOMAIN_UNDEFINE_FLAGS', {
      dom,
      flags: DomainUndefine.NVRAM | DomainUndefine.MANAGED_SAVE | DomainUndefine.SNAPSHOTS_METADATA,
    })
    .catch(() => undefined);
}

/** Deletes volumes of the test pool by name; no error for the ones already gone. */
export async function removeVolumes(client: LibvirtClient, names: readonly string[]): Promise<void> {
  const pool = await testPool(client);
  await client.call('STORAGE_POOL_REFRESH', { pool, flags: 0 }).catch(() => undefined);
  for (const name of names) {
    const vol = await findVolume(client, pool, name);
    if (vol) await client.call('STORAGE_VOL_DELETE', { vol, flags: 0 });
  }
}

/**
 * Removes everything a launch of proxy `name` creates (its domain, overlay and seed),
 * plus `extraVolumes` (e.g. a base volume the test owns); no error for what is gone.
 */
export async function removeProxy(
  client: LibvirtClient,
  name: string,
  extraVolumes: readonly string[] = [],
): Promise<void> {
  // Both ids a name can have: a replacement takes the second (names.ts).
  const ids = instanceIds(name);
  for (const id of ids) await removeDomain(client, id);
  await removeVolumes(client, [...ids.flatMap((id) => Object.values(instanceVolumes(id))), ...extraVolumes]);
}

/** What the daemon reports about itself, asked through virsh: a second client to check ours against. */
export interface HostVersions {
  /** The daemon's libvirt version, e.g. `9.0.0`. */
  daemon: string;
  /** The hypervisor's name and version, e.g. `QEMU` and `7.2.0`. */
  hypervisor: { name: string; version: string };
}

/**
 * `virsh version --daemon` on the test socket, parsed. Tests compare our client's answers
 * with it instead of writing down the versions of the machine they were written on.
 */
export function virshVersions(): HostVersions {
  const uri = `qemu+unix:///system?socket=${testEnv().EGRESS_TEST_SOCKET}`;
  const out = execFileSync('virsh', ['-c', uri, 'version', '--daemon'], { encoding: 'utf8', timeout: 30_000 });
  const daemon = /^Running against daemon: (\d+\.\d+\.\d+)$/m.exec(out)?.[1];
  const hypervisor = /^Running hypervisor: (\S+) (\d+\.\d+\.\d+)$/m.exec(out);
  if (!daemon || !hypervisor)
    throw new Error(`virsh version --daemon printed no daemon or hypervisor version:\n${out}`);
  return { daemon, hypervisor: { name: hypervisor[1]!, version: hypervisor[2]! } };
}
