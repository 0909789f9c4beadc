/**
 * The per-host half of the image cache: each host keeps one base volume per image digest
 * in the host's pool (`egress-base-<sha256>.qcow2`), which every proxy's overlay backs
 * onto. Present and complete → reused with no upload; absent → created and filled from
 * the local cache file through a libvirt stream; present but not the right size (a
 * half-finished upload, say) → deleted and replaced, unless it was written to in the
 * last minute: then another process is uploading it, and this one waits for that upload.
 * Concurrent launches on one host share one upload per digest. An SSH host may instead
 * download the image itself ({@link BaseImages.ensureFetched}): same volume, same rules.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { isAlreadyExists } from '../../../../libvirt/index.js';
import type { HostShell, ProbeReady } from './host-fetch-plan.js';
import { type HostFetchResult, fetchOnHost } from './host-fetch.js';
import type { HostQueues } from './host-queue.js';
import type { LibvirtApi, VolumeInfo } from '../libvirt-api.js';
import { baseVolumeName } from '../names.js';
import { messageOf } from '../../../../../shared/errors.js';
import { noRoom } from '../pool-room.js';
import { buildBaseVolumeXml } from '../xml/volume-xml.js';

/** A verified image file in the local cache. */
export interface LocalImage {
  path: string;
  size: number;
  sha256: string;
  format: 'qcow2' | 'raw';
}

export interface BaseImageOptions {
  onProgress?: (done: number, total: number) => void;
  signal?: AbortSignal;
  /**
   * A fresh API for the host (its connection reopened): the cleanup of a failed upload uses it
   * when the connection the upload ran on is the thing that failed (an SSH session cut).
   */
  reconnect?: () => Promise<LibvirtApi>;
}

export interface BaseVolume {
  volume: VolumeInfo;
  /** True when this call transferred it (uploaded or fetched); false when it was already there. */
  uploaded: boolean;
  /** True when the host downloaded it itself (fetch-on-host). */
  fetched?: boolean;
  /** What the fetch's cleanup could not remove from the host. */
  left?: string[];
}

/** An image the host downloads itself: where from, what it must hash to, and the host's probe. */
export interface FetchSource {
  url: string;
  sha256: string;
  format: 'qcow2' | 'raw';
  shell: HostShell;
  probe: ProbeReady;
}

/** What completeness is judged by: the volume's name, the image file's size and its virtual size. */
interface BaseFacts {
  name: string;
  size: number;
  virtualSize: number;
}

function pick(options: BaseImageOptions): Pick<BaseImageOptions, 'onProgress' | 'signal'> {
  return {
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  };
}

const QCOW2_MAGIC = 0x514649fb; // "QFI\xfb"
/** Allocation is counted in filesystem blocks; a complete upload fills at least every whole block of the file. */
const BLOCK = 4096;

/**
 * The virtual size libvirt will report for the image once uploaded: a qcow2 file's header
 * says it (big-endian u64 at offset 24); a raw file is its own size.
 */
export function virtualSizeOf(header: Buffer, fileSize: number, format: 'qcow2' | 'raw'): number {
  if (format === 'raw') return fileSize;
  if (header.length < 32 || header.readUInt32BE(0) !== QCOW2_MAGIC)
    throw new Error('the image is not a qcow2 file (no QFI\\xfb magic), but the config says format qcow2');
  return Number(header.readBigUInt64BE(24));
}

async function readHeader(path: string): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buf = Buffer.alloc(32);
    const { bytesRead } = await handle.read(buf, 0, 32, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** True when a base volume holds the whole image: libvirt read its header, and every block was written. */
export function isComplete(volume: VolumeInfo, virtualSize: number, fileSize: number): boolean {
  return volume.capacityBytes === virtualSize && volume.allocationBytes >= Math.floor(fileSize / BLOCK) * BLOCK;
}

export class BaseImages {
  private readonly flights = new Map<string, Promise<BaseVolume>>();

  constructor(
    private readonly queues: HostQueues,
    private readonly now: () => number = Date.now,
  ) {}

  /** The base volume of `image` on `host`, uploading it first when it is missing or incomplete. */
  ensure(
    host: string,
    api: LibvirtApi,
    pool: string,
    image: LocalImage,
    options: BaseImageOptions = {},
  ): Promise<BaseVolume> {
    return this.flight(host, pool, image.sha256, image.size, options, async () => {
      const name = baseVolumeName(image.sha256, image.format);
      const virtualSize = virtualSizeOf(await readHeader(image.path), image.size, image.format);
      return this.run(host, api, pool, { name, size: image.size, virtualSize }, options, async () => {
        try {
          await api.createVolume(pool, buildBaseVolumeXml(name, image.size, image.format));
        } catch (err) {
          // Another process created it between our look and our create: wait for its upload instead.
          if (isAlreadyExists(err)) return undefined;
          throw err;
        }
        return await this.upload(api, pool, name, image, virtualSize, options);
      });
    });
  }

  /**
   * The base volume of the image at `source.url` on `host`, downloaded on the host itself
   * when it is missing or incomplete (host-fetch.ts). The same volume name, completeness
   * check and waiting as {@link ensure}: a base fetched here and one uploaded by another
   * process are interchangeable. The sizes come from the host's probe of the URL.
   */
  ensureFetched(
    host: string,
    api: LibvirtApi,
    pool: string,
    source: FetchSource,
    options: BaseImageOptions = {},
  ): Promise<BaseVolume> {
    const { probe } = source;
    return this.flight(host, pool, source.sha256, probe.size, options, async () => {
      const name = baseVolumeName(source.sha256, source.format);
      const virtualSize = virtualSizeOf(probe.header, probe.size, source.format);
      return this.run(host, api, pool, { name, size: probe.size, virtualSize }, options, async () => {
        let fetched: HostFetchResult;
        try {
          fetched = await fetchOnHost({
            api,
            shell: source.shell,
            probe,
            pool,
            name,
            url: source.url,
            sha256: source.sha256,
            ...pick(options),
          });
        } catch (err) {
          // Another process made the base while this host downloaded: look at it again.
          if (isAlreadyExists(err)) return undefined;
          throw err;
        }
        if (!isComplete(fetched.volume, virtualSize, probe.size)) {
          const left = await discard(api, pool, name, options.reconnect);
          const detail = `capacity ${fetched.volume.capacityBytes}, allocation ${fetched.volume.allocationBytes} bytes; the image is ${probe.size} bytes, ${virtualSize} virtual`;
          throw new Error(
            `base volume ${name} in pool ${pool} is incomplete after libvirt copied the fetched image (${detail})${left ? `; ${left}` : ''}`,
          );
        }
        return {
          volume: fetched.volume,
          uploaded: true,
          fetched: true,
          ...(fetched.left.length > 0 ? { left: fetched.left } : {}),
        };
      });
    });
  }

  /** One transfer per host, pool and digest in this process; a second caller joins the first. */
  private flight(
    host: string,
    pool: string,
    sha256: string,
    size: number,
    options: BaseImageOptions,
    start: () => Promise<BaseVolume>,
  ): Promise<BaseVolume> {
    const key = `${host}\0${pool}\0${sha256}`;
    let flight = this.flights.get(key);
    if (!flight) {
      flight = start().finally(() => this.flights.delete(key));
      this.flights.set(key, flight);
    } else if (options.onProgress) {
      // A joiner sees no byte counts of the shared upload; it is told it waits.
      options.onProgress(0, size);
    }
    return flight;
  }

  /**
   * Reuses a complete base, waits for one another process is writing, replaces an abandoned
   * one, and otherwise runs `create` (inside the host's queue), which resolves undefined when
   * another process created the volume first: then it is looked at again.
   */
  private async run(
    host: string,
    api: LibvirtApi,
    pool: string,
    facts: BaseFacts,
    options: BaseImageOptions,
    create: () => Promise<BaseVolume | undefined>,
  ): Promise<BaseVolume> {
    const { name, size, virtualSize } = facts;
    const existing = await api.getVolume(pool, name);
    if (existing && isComplete(existing, virtualSize, size)) return { volume: existing, uploaded: false };
    return this.queues.run(host, async () => {
      for (;;) {
        if (options.signal?.aborted)
          throw options.signal.reason instanceof Error ? options.signal.reason : new Error('cancelled');
        // Looked at again inside the queue: another process may have finished it meanwhile.
        const current = await api.getVolume(pool, name);
        if (current && isComplete(current, virtualSize, size)) return { volume: current, uploaded: false };
        if (current) {
          // Incomplete: another process may be writing it right now (this process's uploads are queued).
          if (await this.beingWritten(api, pool, name)) {
            options.onProgress?.(current.allocationBytes, size);
            await sleep(WAIT_MS, options.signal);
            continue;
          }
          await api.deleteVolume(pool, name);
        }
        // A base that cannot fit is refused before anything is created on the host: a pool
        // filled by a half-written base would fail the launch late and starve its other guests.
        const room = await api.poolInfo(pool);
        if (room.availableBytes < size)
          throw new PoolFullError(host, noRoom(pool, room.availableBytes, size, `the image ${name} needs`));
        const made = await create();
        if (made) return made;
      }
    });
  }

  private async upload(
    api: LibvirtApi,
    pool: string,
    name: string,
    image: LocalImage,
    virtualSize: number,
    options: BaseImageOptions,
  ): Promise<BaseVolume> {
    try {
      await api.uploadVolume(pool, name, createReadStream(image.path), {
        length: image.size,
        ...(options.onProgress ? { onProgress: options.onProgress } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      });
      const volume = await api.getVolume(pool, name);
      if (!volume || !isComplete(volume, virtualSize, image.size)) {
        throw new Error(
          `base volume ${name} in pool ${pool} is incomplete after the upload (capacity ${volume?.capacityBytes ?? 0}, allocation ${volume?.allocationBytes ?? 0} bytes)`,
        );
      }
      return { volume, uploaded: true };
    } catch (err) {
      // A half-written base is never used (isComplete refuses it), but left behind it would make
      // the next launch wait for it as another process's upload: remove it now.
      const left = await discard(api, pool, name, options.reconnect);
      if (left) throw new Error(`${messageOf(err)}; ${left}`, { cause: err });
      throw err;
    }
  }

  /**
   * Whether an incomplete base volume was written to within {@link STALE_MS}: then another
   * process (the app beside the CLI, a script) is most likely uploading it, and deleting it
   * as "half-finished" would break that upload. A pool that keeps no timestamps cannot
   * tell: the volume counts as abandoned, as before.
   */
  private async beingWritten(api: LibvirtApi, pool: string, name: string): Promise<boolean> {
    const changed = await api.volumeChangedAt(pool, name).catch(() => undefined);
    return changed !== undefined && this.now() - changed < STALE_MS;
  }
}

/** The host's pool cannot hold the base image: nothing was created. */
export class PoolFullError extends Error {
  override readonly name = 'PoolFullError';
  constructor(
    readonly host: string,
    detail: string,
  ) {
    super(`${host}: ${detail}; free space in the pool (or choose a host with room) and launch again`);
  }
}

/** An incomplete base volume untouched this long is an abandoned upload (a process that died). */
export const STALE_MS = 60_000;
/** How often a waiting launch looks at another process's upload. */
const WAIT_MS = 500;

/**
 * Deletes an incomplete base volume after a failed upload, on the upload's connection or,
 * when that one is gone, on a reopened one. libvirt may still hold the volume for the
 * aborted stream for a moment, so it is tried a few times. Returns what is left, or undefined.
 */
async function discard(
  api: LibvirtApi,
  pool: string,
  name: string,
  reconnect?: () => Promise<LibvirtApi>,
): Promise<string | undefined> {
  let last: unknown;
  for (let attempt = 0; attempt < DISCARD_ATTEMPTS; attempt++) {
    try {
      const target = attempt === 0 || !reconnect ? api : await reconnect();
      await target.deleteVolume(pool, name);
      return undefined;
    } catch (err) {
      last = err;
      await sleep(DISCARD_PAUSE_MS);
    }
  }
  return `the incomplete base volume ${name} is left in pool ${pool} (${messageOf(last)}): it is never used, and a launch on this host replaces it once it has been untouched for ${STALE_MS / 1000} s`;
}

const DISCARD_ATTEMPTS = 5;
const DISCARD_PAUSE_MS = 400;

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason instanceof Error ? signal.reason : new Error('cancelled'));
      },
      { once: true },
    );
  });
}
