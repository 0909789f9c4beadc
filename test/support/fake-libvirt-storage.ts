/**
 * FakeHost's base (fake-libvirt.ts): what every call of the in-memory libvirt host goes
 * through (the call log, injected faults, simulated latency, a host that is down) and
 * the host's storage: pools and volumes, with libvirt's rule that a pool runs one
 * pool-changing job at a time, so that missing serialisation fails loudly. Domains,
 * networks and consoles are FakeHost's own.
 */
import type { Readable } from 'node:stream';
import { ErrorCode, LibvirtError } from '../../electron/libvirt/index.js';
import {
  type LibvirtApi,
  POOL_CHANGING,
  type PoolInfo,
  type UploadOptions,
  type VolumeInfo,
} from '../../electron/services/provider/kvm/libvirt-api.js';

export type Op = keyof LibvirtApi;

export interface FakeVolume {
  /** The backing store's path, as the creating XML named it (an overlay's base). */
  backingPath?: string;
  /** ms since the epoch, like the ctime/mtime libvirt reports for a dir pool's volume. */
  changedAt?: number;
  name: string;
  path: string;
  capacityBytes: number;
  allocationBytes: number;
}

export interface FakePool {
  name: string;
  active: boolean;
  capacityBytes: number;
  volumes: Map<string, FakeVolume>;
  /** The pool-changing job running now, if any. */
  job?: string | undefined;
}

/** What a FakeHost is made with (this base reads the name, the pools and the ticks). */
export interface FakeHostOptions {
  name: string;
  pools?: Array<{ name: string; capacityBytes?: number; active?: boolean }>;
  networks?: string[];
  freeMemoryBytes?: number;
  kvm?: boolean;
  /** Whether guests honour the ACPI power button (default true). */
  acpi?: boolean;
  /** A started domain gets a DHCP lease at once (default true). */
  autoLease?: boolean;
  /** Simulated latency of every call, in event-loop turns (default 2): enough for calls to overlap. */
  ticks?: number;
}

const tick = () => new Promise<void>((r) => setImmediate(r));

/** The `<name>` of a domain's or a volume's XML. */
export const nameOf = (xml: string): string => /<name>([^<]+)<\/name>/.exec(xml)?.[1] ?? '';

/** FakeHost without its domains: the calls' machinery, and pools and volumes. */
export abstract class FakeStorageHost {
  readonly name: string;
  readonly pools = new Map<string, FakePool>();
  /** Every call, in order: `op` or `op:arg`. */
  readonly calls: string[] = [];
  /** Pool jobs that overlapped another (should stay empty). */
  readonly overlaps: string[] = [];
  /** When true, every call fails as if the host were down. */
  down = false;
  private readonly counts = new Map<Op, number>();
  private readonly faults: Array<{ op: Op; nth: number; error: Error }> = [];
  private readonly ticks: number;

  constructor(options: FakeHostOptions) {
    this.name = options.name;
    for (const p of options.pools ?? [{ name: 'default' }])
      this.pools.set(p.name, {
        name: p.name,
        active: p.active ?? true,
        capacityBytes: p.capacityBytes ?? 100 * 1024 ** 3,
        volumes: new Map(),
      });
    this.ticks = options.ticks ?? 2;
  }

  /** Makes the `nth` call (counted from now, 1-based) of `op` fail with `error`. */
  failOn(
    op: Op,
    nth = 1,
    error: Error = LibvirtError.local(ErrorCode.INTERNAL_ERROR, `injected failure of ${op}`, op),
  ): void {
    this.faults.push({ op, nth: (this.counts.get(op) ?? 0) + nth, error });
  }

  /** How many times `op` was called. */
  count(op: Op): number {
    return this.counts.get(op) ?? 0;
  }

  clearFaults(): void {
    this.faults.length = 0;
  }

  /** Adds a volume behind the provider's back (a leftover). */
  addVolume(pool: string, name: string, capacityBytes = 1024, allocationBytes = capacityBytes): void {
    this.pool(pool).volumes.set(name, {
      name,
      path: `/fake/${this.name}/${pool}/${name}`,
      capacityBytes,
      allocationBytes,
    });
  }

  protected async enter(op: Op, arg?: string): Promise<void> {
    const n = (this.counts.get(op) ?? 0) + 1;
    this.counts.set(op, n);
    this.calls.push(arg === undefined ? op : `${op}:${arg}`);
    for (let i = 0; i < this.ticks; i++) await tick();
    if (this.down) throw new Error(`host ${this.name} is down (connection refused)`);
    const fault = this.faults.findIndex((f) => f.op === op && f.nth === n);
    if (fault >= 0) throw this.faults.splice(fault, 1)[0]!.error;
  }

  /** Runs a pool-changing job, refusing (like libvirt) to run two at once on one pool. */
  private async poolJob<T>(op: Op, pool: string, run: (p: FakePool) => Promise<T> | T): Promise<T> {
    const p = this.pool(pool);
    if (!(POOL_CHANGING as readonly string[]).includes(op)) throw new Error(`${op} is not pool-changing`);
    if (p.job) {
      this.overlaps.push(`${op} while ${p.job}`);
      throw LibvirtError.local(
        ErrorCode.OPERATION_INVALID,
        `storage pool '${pool}' has asynchronous jobs running (${p.job}).`,
        op,
      );
    }
    p.job = op;
    try {
      for (let i = 0; i < this.ticks; i++) await tick();
      return await run(p);
    } finally {
      p.job = undefined;
    }
  }

  protected pool(name: string): FakePool {
    const p = this.pools.get(name);
    if (!p)
      throw LibvirtError.local(
        ErrorCode.NO_STORAGE_POOL,
        `Storage pool not found: no storage pool with matching name '${name}'`,
      );
    return p;
  }

  async poolInfo(pool: string): Promise<PoolInfo> {
    await this.enter('poolInfo', pool);
    const p = this.pool(pool);
    const used = [...p.volumes.values()].reduce((n, v) => n + v.allocationBytes, 0);
    return { name: pool, active: p.active, capacityBytes: p.capacityBytes, availableBytes: p.capacityBytes - used };
  }

  async refreshPool(pool: string): Promise<void> {
    await this.enter('refreshPool', pool);
    await this.poolJob('refreshPool', pool, () => undefined);
  }

  async listVolumes(pool: string): Promise<string[]> {
    await this.enter('listVolumes', pool);
    return [...this.pool(pool).volumes.keys()];
  }

  async getVolume(pool: string, name: string): Promise<VolumeInfo | null> {
    await this.enter('getVolume', name);
    const v = this.pool(pool).volumes.get(name);
    return v ? { ...v } : null;
  }

  async createVolume(pool: string, xml: string): Promise<VolumeInfo> {
    const name = nameOf(xml);
    await this.enter('createVolume', name);
    return this.poolJob('createVolume', pool, (p) => {
      if (p.volumes.has(name))
        throw LibvirtError.local(ErrorCode.STORAGE_VOL_EXIST, `storage volume '${name}' exists already`);
      const capacity = Number(/<capacity unit="bytes">(\d+)<\/capacity>/.exec(xml)?.[1] ?? '0');
      const vol: FakeVolume = {
        name,
        path: `/fake/${this.name}/${pool}/${name}`,
        capacityBytes: capacity,
        allocationBytes: 0,
      };
      const backing = /<backingStore>\s*<path>([^<]+)<\/path>/.exec(xml)?.[1];
      if (backing) vol.backingPath = backing;
      p.volumes.set(name, vol);
      return { ...vol };
    });
  }

  async volumeChangedAt(pool: string, name: string): Promise<number | undefined> {
    await this.enter('volumeChangedAt', `${pool}/${name}`);
    return this.pool(pool).volumes.get(name)?.changedAt;
  }

  async volumeBackingPath(pool: string, name: string): Promise<string | undefined> {
    await this.enter('volumeBackingPath', `${pool}/${name}`);
    return this.pool(pool).volumes.get(name)?.backingPath;
  }

  async deleteVolume(pool: string, name: string): Promise<void> {
    await this.enter('deleteVolume', name);
    await this.poolJob('deleteVolume', pool, (p) => {
      if (!p.volumes.delete(name))
        throw LibvirtError.local(
          ErrorCode.NO_STORAGE_VOL,
          `Storage volume not found: no storage vol with matching name '${name}'`,
        );
    });
  }

  async uploadVolume(pool: string, name: string, source: Readable, options: UploadOptions): Promise<void> {
    await this.enter('uploadVolume', name);
    await this.poolJob('uploadVolume', pool, async (p) => {
      const vol = p.volumes.get(name);
      if (!vol) throw LibvirtError.local(ErrorCode.NO_STORAGE_VOL, `Storage volume not found: ${name}`);
      const chunks: Buffer[] = [];
      let done = 0;
      for await (const chunk of source) {
        const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
        chunks.push(buf);
        done += buf.length;
        options.onProgress?.(done, options.length);
        await tick();
      }
      const data = Buffer.concat(chunks);
      vol.allocationBytes = data.length;
      // Like libvirt's refresh after an upload: a qcow2 header gives the virtual size.
      vol.capacityBytes =
        data.length >= 32 && data.readUInt32BE(0) === 0x514649fb
          ? Number(data.readBigUInt64BE(24))
          : Math.max(vol.capacityBytes, data.length);
    });
  }

  async createDirPool(name: string, path: string): Promise<void> {
    await this.enter('createDirPool', `${name}:${path}`);
    if (this.pools.has(name)) throw LibvirtError.local(ErrorCode.OPERATION_FAILED, `pool '${name}' already exists`);
    this.pools.set(name, { name, active: true, capacityBytes: 100 * 1024 ** 3, volumes: new Map() });
  }

  async destroyPool(name: string): Promise<void> {
    await this.enter('destroyPool', name);
    this.pool(name);
    this.pools.delete(name);
  }

  async copyVolume(pool: string, xml: string, fromPool: string, fromName: string): Promise<VolumeInfo> {
    const name = nameOf(xml);
    await this.enter('copyVolume', `${fromPool}/${fromName}>${pool}/${name}`);
    const from = this.pool(fromPool).volumes.get(fromName);
    if (!from) throw LibvirtError.local(ErrorCode.NO_STORAGE_VOL, `Storage volume not found: ${fromName}`);
    return this.poolJob('copyVolume', pool, (p) => {
      if (p.volumes.has(name))
        throw LibvirtError.local(ErrorCode.STORAGE_VOL_EXIST, `storage volume '${name}' exists already`);
      const vol: FakeVolume = {
        name,
        path: `/fake/${this.name}/${pool}/${name}`,
        capacityBytes: from.capacityBytes,
        allocationBytes: from.allocationBytes,
      };
      p.volumes.set(name, vol);
      return { ...vol };
    });
  }
}

/** A qcow2-looking image file's bytes: the magic, version 3, and `virtualSize` at offset 24. */
export function fakeQcow2(virtualSize: number, fileSize = 64 * 1024): Buffer {
  const buf = Buffer.alloc(fileSize);
  buf.writeUInt32BE(0x514649fb, 0);
  buf.writeUInt32BE(3, 4);
  buf.writeBigUInt64BE(BigInt(virtualSize), 24);
  return buf;
}
