import { describe, expect, it } from 'vitest';
import { ErrorCode, LibvirtError } from '../../../electron/libvirt/index.js';
import { isPoolBusy, retryWhilePoolBusy } from '../../../electron/services/provider/kvm/pool-busy.js';

const busy = () => LibvirtError.local(ErrorCode.INTERNAL_ERROR, "pool 'egtest-pool' has asynchronous jobs running.");

describe('pool jobs refused while another runs', () => {
  it("knows libvirt's refusals (pool refresh, volume in use or being allocated) and nothing else", () => {
    expect(isPoolBusy(busy())).toBe(true);
    expect(isPoolBusy(LibvirtError.local(ErrorCode.OPERATION_INVALID, "volume 'v' is still in use."))).toBe(true);
    expect(isPoolBusy(LibvirtError.local(ErrorCode.OPERATION_INVALID, "volume 'v' is still being allocated."))).toBe(
      true,
    );
    expect(isPoolBusy(LibvirtError.local(ErrorCode.NO_STORAGE_VOL, 'Storage volume not found'))).toBe(false);
    expect(isPoolBusy(new Error('pool has asynchronous jobs running'))).toBe(false); // not libvirt's
  });

  it("asks again with backoff until the job runs, and gives up at the deadline with libvirt's error", async () => {
    let t = 0;
    const waits: number[] = [];
    const clock = { now: () => t, sleep: async (ms: number) => void (waits.push(ms), (t += ms)) };
    let calls = 0;
    expect(await retryWhilePoolBusy(async () => (++calls < 4 ? Promise.reject(busy()) : 'done'), clock)).toBe('done');
    expect(waits).toEqual([100, 200, 400]);

    waits.length = 0;
    await expect(retryWhilePoolBusy(() => Promise.reject(busy()), { ...clock, maxWaitMs: 10_000 })).rejects.toThrow(
      /asynchronous jobs running/,
    );
    expect(waits.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(10_000);
    expect(waits.at(-1)).toBe(2_000);

    const other = LibvirtError.local(ErrorCode.NO_STORAGE_VOL, 'gone');
    let once = 0;
    await expect(retryWhilePoolBusy(() => (once++, Promise.reject(other)), clock)).rejects.toBe(other);
    expect(once).toBe(1);
  });
});
