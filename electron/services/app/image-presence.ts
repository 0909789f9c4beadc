/**
 * Per-host presence of the images' base volumes. A base volume is named by the image's
 * digest (names.ts baseVolumeName), so one listing of each host's pool answers for every
 * image. A host whose connection failed (error, auth-needed, host-key-unknown) is not
 * asked: it is `unknown`, with the reason, never `no`. A host not connected yet (the
 * backend is rebuilt after every config edit, and connects on first use) is connected
 * here, within the same time limit as the listing: past it, it is `unknown` this time and
 * the renderer asks again once the host's status says connected.
 */
import type { ImagePresence } from '../../../shared/images-view.js';

import { bakedName } from '../provider/kvm/images/bake.js';
import { baseVolumeName } from '../provider/kvm/names.js';
import type { FleetAssembly } from './fleet-assembly.js';
import { messageOf } from '../../../shared/errors.js';

/** How long one host's pool listing may take before the host counts as unknown. */
export const PRESENCE_TIMEOUT_MS = 5000;

type Listing = { ok: true; volumes: Set<string> } | { ok: false; message: string };

async function listPool(backend: FleetAssembly, host: string, pool: string, timeoutMs: number): Promise<Listing> {
  const status = backend.hosts.status(host);
  if (status.state !== 'connected' && status.state !== 'connecting')
    return { ok: false, message: `${host} is ${status.state}${status.message ? `: ${status.message}` : ''}` };
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`listing pool ${pool} took longer than ${timeoutMs / 1000} s`)),
      timeoutMs,
    );
  });
  try {
    const api = await Promise.race([backend.apiFor(host), timeout]);
    return { ok: true, volumes: new Set(await Promise.race([api.listVolumes(pool), timeout])) };
  } catch (err) {
    return { ok: false, message: `cannot list pool ${pool} on ${host}: ${messageOf(err)}` };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * For each image (by the order given), its presence on every configured host, in config
 * order. Hosts are asked in parallel, each pool once.
 */
export async function imagePresence(
  backend: FleetAssembly,
  images: ReadonlyArray<{ sha256: string; format: 'qcow2' | 'raw' }>,
  timeoutMs = PRESENCE_TIMEOUT_MS,
): Promise<ImagePresence[][]> {
  const listings = await Promise.all(
    backend.config.hosts.map(async (h) => ({
      host: h.name,
      listing: await listPool(backend, h.name, h.pool, timeoutMs),
    })),
  );
  return images.map((image) => {
    const volume = baseVolumeName(image.sha256, image.format);
    const baked = bakedName(image.sha256);
    return listings.map(({ host, listing }): ImagePresence => {
      if (!listing.ok) return { host, present: 'unknown', message: listing.message };
      // A baked base serves launches even when the plain one was pruned since the bake.
      const base = listing.volumes.has(baked)
        ? { base: 'baked' as const, bakedVolume: baked }
        : { base: 'plain' as const };
      return listing.volumes.has(volume) ? { host, present: 'yes', volume, ...base } : { host, present: 'no', ...base };
    });
  });
}
