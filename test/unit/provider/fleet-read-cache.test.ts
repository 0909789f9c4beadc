import { describe, expect, it } from 'vitest';
import { FleetReadCache } from '../../../electron/services/provider/kvm/fleet-read-cache.js';

/** A change source the test drives: `confirm` resolves the subscription, `change` reports a domain changed. */
function source() {
  let onChange: ((uuid: string) => void) | undefined;
  let confirm!: () => void;
  let refuse!: (err: Error) => void;
  const subscribed = new Promise<void>((resolve, reject) => {
    confirm = resolve;
    refuse = reject;
  });
  return {
    changes: (listener: (uuid: string) => void) => {
      onChange = listener;
      return subscribed;
    },
    change: (uuid: string) => onChange!(uuid),
    confirm: () => confirm(),
    refuse: () => refuse(new Error('no events here')),
  };
}

/** A cache whose subscriptions are confirmed, with its change source. */
async function activeCache() {
  const s = source();
  const cache = new FleetReadCache(s.changes);
  s.confirm();
  await cache.ready();
  return { s, cache };
}

function counted(value: string | null) {
  const fetch = async () => {
    fetch.calls++;
    return value;
  };
  fetch.calls = 0;
  return fetch;
}

describe('FleetReadCache', () => {
  it('keeps nothing until the subscriptions are confirmed, then answers unchanged domains without fetching', async () => {
    const s = source();
    const cache = new FleetReadCache(s.changes);
    const fetch = counted('<e/>');
    const ready = cache.ready();
    expect(await cache.read('u1', 'element x', fetch)).toBe('<e/>');
    expect(await cache.read('u1', 'element x', fetch)).toBe('<e/>');
    expect(fetch.calls).toBe(2);
    s.confirm();
    await ready;
    expect(cache.active).toBe(true);
    await cache.read('u1', 'element x', fetch);
    expect(await cache.read('u1', 'element x', fetch)).toBe('<e/>');
    expect(fetch.calls).toBe(3);
    // A domain without the element (null) is kept too: a domain that is not ours costs nothing either.
    const none = counted(null);
    await cache.read('u2', 'element x', none);
    expect(await cache.read('u2', 'element x', none)).toBeNull();
    expect(none.calls).toBe(1);
  });

  it('reads a domain again after its change, and per kind (a started domain needs its XML)', async () => {
    const { s, cache } = await activeCache();
    const fetch = counted('<e/>');
    await cache.read('u1', 'element x', fetch);
    s.change('u1');
    await cache.read('u1', 'element x', fetch);
    expect(fetch.calls).toBe(2);
    const xml = counted('<domain/>');
    expect(await cache.read('u1', 'xml', xml)).toBe('<domain/>');
    expect(await cache.read('u1', 'element y', fetch)).toBe('<e/>');
    expect(fetch.calls).toBe(3);
  });

  it('does not keep an answer that a change overtook', async () => {
    const { s, cache } = await activeCache();
    let release!: () => void;
    const slow = async () => {
      await new Promise<void>((r) => (release = r));
      return 'old';
    };
    const reading = cache.read('u1', 'xml', slow);
    await Promise.resolve();
    s.change('u1'); // the change came while the old answer was on its way
    release();
    expect(await reading).toBe('old');
    const fresh = counted('new');
    expect(await cache.read('u1', 'xml', fresh)).toBe('new');
    expect(fresh.calls).toBe(1);
    // A change of another domain does not stop this one's answer from being kept.
    const other = cache.read('u3', 'xml', counted('three'));
    s.change('u4');
    await other;
    const again = counted('three again');
    expect(await cache.read('u3', 'xml', again)).toBe('three');
    expect(again.calls).toBe(0);
  });

  it('reads everything when events cannot be had, and after the connection closed', async () => {
    const s = source();
    const cache = new FleetReadCache(s.changes);
    s.refuse();
    await cache.ready(); // never rejects
    const fetch = counted('<e/>');
    await cache.read('u1', 'xml', fetch);
    await cache.read('u1', 'xml', fetch);
    expect(fetch.calls).toBe(2);

    const t = source();
    const closing = new FleetReadCache(t.changes);
    t.confirm();
    await closing.ready();
    await closing.read('u1', 'xml', fetch);
    closing.stop();
    await closing.read('u1', 'xml', fetch);
    await closing.read('u1', 'xml', fetch);
    expect(fetch.calls).toBe(5);
    expect(closing.active).toBe(false);
  });

  it('reads an entry again once it is older than the longest time trusted without an event, and forgets domains no longer listed', async () => {
    const s = source();
    let now = 0;
    const cache = new FleetReadCache(s.changes, () => now, 1_000);
    s.confirm();
    await cache.ready();
    const fetch = counted('<e/>');
    await cache.read('u1', 'xml', fetch);
    now = 999;
    await cache.read('u1', 'xml', fetch);
    expect(fetch.calls).toBe(1);
    now = 1_000;
    await cache.read('u1', 'xml', fetch);
    expect(fetch.calls).toBe(2);
    cache.retain(new Set(['u2']));
    await cache.read('u1', 'xml', fetch);
    expect(fetch.calls).toBe(3);
  });
});
