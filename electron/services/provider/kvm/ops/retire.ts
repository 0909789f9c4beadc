/**
 * Removing one proxy's domain from its host: destroy (when running), undefine, then the
 * volumes its own XML names. Delete does this and then forgets the credentials; a replace
 * does it to the old domain only and keeps them (the new domain uses the same ones).
 */
import { messageOf } from '../../../../../shared/errors.js';
import type { ProviderContext } from '../context.js';
import { type VolumeRef, ownVolumes } from '../domain-facts.js';
import type { Located } from '../fleet.js';
import type { LibvirtApi } from '../libvirt-api.js';

/** Destroys and undefines the located domain, then deletes its volumes; returns what was removed, in order. */
export async function removeDomain(
  ctx: ProviderContext,
  found: Pick<Located, 'host' | 'api' | 'domain'>,
): Promise<string[]> {
  const { host, api, domain } = found;
  // Read before the domain goes: afterwards nothing says where its disks were.
  const own = ownVolumes(domain);
  const removed: string[] = [];
  if (domain.state !== 'shutoff') {
    await api.destroyDomain(domain.name).catch(async (err: unknown) => {
      // Stopped meanwhile is fine; anything else is not.
      if ((await api.getDomain(domain.name))?.state !== 'shutoff') throw err;
    });
  }
  await api.undefineDomain(domain.name);
  removed.push(`domain ${domain.name}`);
  removed.push(...(await deleteVolumes(ctx, host.name, api, own)));
  return removed;
}

/** Deletes the volumes that exist among `refs`, one host's pool operations at a time. */
export async function deleteVolumes(
  ctx: ProviderContext,
  hostName: string,
  api: LibvirtApi,
  refs: readonly VolumeRef[],
): Promise<string[]> {
  return ctx.queues.run(hostName, async () => {
    const removed: string[] = [];
    for (const { pool, volume } of refs) {
      try {
        if (!(await api.getVolume(pool, volume))) continue;
        await api.deleteVolume(pool, volume);
        removed.push(`volume ${volume}`);
      } catch (err) {
        throw new Error(`cannot delete volume ${volume} in pool ${pool} on ${hostName}: ${messageOf(err)}`, {
          cause: err,
        });
      }
    }
    return removed;
  });
}
