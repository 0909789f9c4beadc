/**
 * What the two halves of the procedure tour share: procedures.test.ts (the connection, the
 * host, and domains on the test driver) and procedures-storage.test.ts (storage, networks
 * and a console on qemu:///system).
 *
 * The tour's promise: libvirtd answered every procedure of the table at least once, as the
 * packets it sent back show. Each half has its own connections and taps, so each checks its
 * share: the storage half the procedures of {@link STORAGE_TOUR}, the other half every other
 * procedure. A procedure new to the table fails the first half until one of them calls it.
 */
import type { LibvirtClient } from '../../electron/libvirt/client.js';
import { MessageType } from '../../electron/libvirt/packet.js';
import { type ProcedureName, procedures } from '../../electron/libvirt/procedures.js';
import { type Tap, bestEffort } from './client-support.js';

/** The procedures procedures-storage.test.ts calls: its share of the table. */
export const STORAGE_TOUR: ReadonlySet<ProcedureName> = new Set<ProcedureName>([
  'CONNECT_LIST_ALL_STORAGE_POOLS',
  'STORAGE_POOL_LOOKUP_BY_NAME',
  'STORAGE_POOL_REFRESH',
  'STORAGE_POOL_GET_INFO',
  'STORAGE_POOL_LIST_ALL_VOLUMES',
  'STORAGE_POOL_CREATE_XML',
  'STORAGE_POOL_DESTROY',
  'STORAGE_VOL_CREATE_XML',
  'STORAGE_VOL_CREATE_XML_FROM',
  'STORAGE_VOL_LOOKUP_BY_NAME',
  'STORAGE_VOL_GET_INFO',
  'STORAGE_VOL_GET_PATH',
  'STORAGE_VOL_GET_XML_DESC',
  'STORAGE_VOL_UPLOAD',
  'STORAGE_VOL_DOWNLOAD',
  'STORAGE_VOL_DELETE',
  'CONNECT_LIST_ALL_NETWORKS',
  'NETWORK_LOOKUP_BY_NAME',
  'NETWORK_GET_DHCP_LEASES',
  'DOMAIN_DEFINE_XML',
  'DOMAIN_CREATE_WITH_FLAGS',
  'DOMAIN_OPEN_CONSOLE',
  'DOMAIN_GET_XML_DESC',
  'DOMAIN_INTERFACE_ADDRESSES',
  'DOMAIN_DESTROY_FLAGS',
  'DOMAIN_UNDEFINE_FLAGS',
]);

/** The procedures the tour answers for: the whole table but CONNECT_CLOSE, answered only as a connection closes (client.test.ts checks its reply). */
export const TOURED: readonly ProcedureName[] = (Object.keys(procedures) as ProcedureName[]).filter(
  (name) => name !== 'CONNECT_CLOSE',
);

/** Those of `names` the daemon never answered (a reply, stream data or an event) on the tapped connections. */
export function unanswered(taps: readonly Tap[], names: Iterable<ProcedureName>): ProcedureName[] {
  const answered = new Set<number>();
  for (const tap of taps) {
    for (const h of tap.headers) {
      if (h.type === MessageType.REPLY || h.type === MessageType.STREAM || h.type === MessageType.MESSAGE)
        answered.add(h.proc);
    }
  }
  return [...names].filter((name) => !answered.has(procedures[name].proc));
}

/** Destroys and undefines the domains a half defined, whatever state a failed test left them in. */
export async function removeDomains(client: LibvirtClient, names: readonly string[]): Promise<void> {
  for (const name of names) {
    await bestEffort(
      async () => client.call('DOMAIN_DESTROY', { dom: await client.call('DOMAIN_LOOKUP_BY_NAME', { name }) }),
      async () =>
        client.call('DOMAIN_UNDEFINE_FLAGS', { dom: await client.call('DOMAIN_LOOKUP_BY_NAME', { name }), flags: 0 }),
    );
  }
}
