/** How a domain store is filled (renderer/stores/sync.ts): subscribe first, list once, lose nothing in between. */
import { describe, expect, it } from 'vitest';
import { syncStore } from '../../../renderer/stores/sync.js';
import { deferred } from './fake-bridge.js';

/** One store's wiring: an event source, a list call the test settles, and what was applied. */
function harness() {
  const load = deferred<undefined>();
  const listeners = new Set<(n: number) => void>();
  const applied: string[] = [];
  const stop = syncStore<number>({
    subscribe: (apply) => {
      listeners.add(apply);
      applied.push('subscribed');
      return [() => listeners.delete(apply)];
    },
    load: () => {
      applied.push('listed');
      return load.promise;
    },
    apply: (n) => applied.push(`event ${n}`),
    fail: (err) => applied.push(`failed: ${String(err)}`),
  });
  return { load, applied, stop, emit: (n: number) => listeners.forEach((l) => l(n)), listeners };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('syncStore', () => {
  it('subscribes before it lists, and applies the events of the meantime after the answer, in order', async () => {
    const h = harness();
    h.emit(1);
    h.emit(2);
    expect(h.applied).toEqual(['subscribed', 'listed']);
    h.load.resolve(undefined);
    await settle();
    h.emit(3);
    expect(h.applied).toEqual(['subscribed', 'listed', 'event 1', 'event 2', 'event 3']);
  });

  it('reports a failed list once, then follows events', async () => {
    const h = harness();
    h.emit(1);
    h.load.reject(new Error('host down'));
    await settle();
    h.emit(2);
    expect(h.applied).toEqual(['subscribed', 'listed', 'failed: Error: host down', 'event 2']);
  });

  it('once stopped, unsubscribes and ignores a late answer', async () => {
    const h = harness();
    h.emit(1);
    h.stop();
    expect(h.listeners.size).toBe(0);
    h.load.resolve(undefined);
    await settle();
    expect(h.applied).toEqual(['subscribed', 'listed']);
    const failing = harness();
    failing.stop();
    failing.load.reject(new Error('late'));
    await settle();
    expect(failing.applied).toEqual(['subscribed', 'listed']);
  });
});
