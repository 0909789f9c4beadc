import { describe, expect, it } from 'vitest';
import { expandNames, parseStrategy } from '../../../shared/launch-many.js';
import { type HostRoom, planHosts } from '../../../electron/services/provider/kvm/ops/launch-many.js';
import { instanceId } from '../../../electron/services/provider/kvm/names.js';
import { fixture } from './provider-fixture.js';

const GiB = 1024 ** 3;
const rooms = (...r: Array<[string, number, number]>): HostRoom[] =>
  r.map(([host, free, available]) => ({ host, free: free * GiB, available: available * GiB }));

describe('names and strategies', () => {
  it('expands {n}; refuses a count above 1 without it, a bad label, and a count out of range', () => {
    expect(expandNames('web-{n}', 3)).toEqual({ names: ['web-1', 'web-2', 'web-3'] });
    expect(expandNames('solo', 1)).toEqual({ names: ['solo'] });
    // A problem names its field and says what is wrong, without the field in the words: each front end names it its own way.
    expect(expandNames('web', 2)).toEqual({
      problem: {
        field: 'name',
        message: 'with a count above 1 the name needs {n}, which becomes 1, 2, …, 2 (e.g. web-{n})',
      },
    });
    expect(expandNames('Web-{n}', 2)).toEqual({
      problem: {
        field: 'name',
        message: '"Web-1" is not a lowercase DNS label (a-z, 0-9 and "-", at most 63 characters)',
      },
    });
    expect(expandNames('w-{n}', 0)).toEqual({
      problem: { field: 'count', message: 'must be a whole number from 1 to 50 (got 0)' },
    });
    expect(expandNames('w-{n}', 51)).toEqual({
      problem: { field: 'count', message: 'must be a whole number from 1 to 50 (got 51)' },
    });
    expect(expandNames('w-{n}', 1.5)).toMatchObject({ problem: { field: 'count' } });
    expect(parseStrategy('spread')).toEqual({ kind: 'spread' });
    expect(parseStrategy(' pack ')).toEqual({ kind: 'pack' });
    expect(parseStrategy('edge-a, edge-b')).toEqual({ kind: 'hosts', hosts: ['edge-a', 'edge-b'] });
    expect(parseStrategy('Nope!')).toEqual({
      problem: { field: 'strategy', message: 'spread, pack, or a comma-separated list of host names (got "Nope!")' },
    });
    expect(parseStrategy('a,,b')).toMatchObject({ problem: { field: 'strategy' } });
  });
});

describe('planHosts', () => {
  it('spread: one per host first (most free memory first), then again by free memory', () => {
    expect(
      planHosts({ kind: 'spread' }, 5, rooms(['a', 4, 100], ['b', 12, 100], ['c', 2, 100]), 1 * GiB, 10 * GiB),
    ).toEqual({ hosts: ['b', 'a', 'c', 'b', 'b'] });
  });

  it('pack: fills the host with the most free memory, then the next', () => {
    expect(planHosts({ kind: 'pack' }, 4, rooms(['a', 2, 100], ['b', 3, 100]), 1 * GiB, 10 * GiB)).toEqual({
      hosts: ['b', 'b', 'b', 'a'],
    });
  });

  it('a list of hosts in turn; a named host that cannot take one, or running out of room, is refused up front', () => {
    expect(
      planHosts({ kind: 'hosts', hosts: ['a', 'b'] }, 3, rooms(['a', 4, 100], ['b', 4, 100]), 1 * GiB, 10 * GiB),
    ).toEqual({ hosts: ['a', 'b', 'a'] });
    expect(planHosts({ kind: 'hosts', hosts: ['a', 'z'] }, 2, rooms(['a', 4, 100]), 1 * GiB, 10 * GiB)).toEqual({
      error: 'not able to take a proxy now: z',
    });
    expect(planHosts({ kind: 'spread' }, 3, rooms(['a', 2, 100]), 1 * GiB, 10 * GiB)).toEqual({
      error: 'room for 2 of 3 proxies on the hosts that answer',
    });
    expect(planHosts({ kind: 'pack' }, 3, rooms(['a', 100, 25]), 1 * GiB, 10 * GiB)).toEqual({
      error: 'room for 2 of 3 proxies on the hosts that answer',
    });
  });
});

describe('launchMany over two in-memory hosts', () => {
  it('spreads, and a failure of one keeps the others (each rolled back alone)', async () => {
    const f = fixture();
    f.b.failOn('defineDomain', 3);
    const specs = ['m-1', 'm-2', 'm-3', 'm-4'].map((name) => ({ name }));
    const out = await f.provider.launchMany(specs, { kind: 'spread' }, { parallel: 1 });
    expect(out.map((o) => [o.name, o.host, o.ok])).toEqual([
      ['m-1', 'edge-b', true],
      ['m-2', 'edge-a', true],
      ['m-3', 'edge-b', true],
      ['m-4', 'edge-b', false],
    ]);
    const failed = out[3]!;
    expect(!failed.ok && failed.error.message).toMatch(/launch failed at step "define"/);
    expect(Object.keys(f.a.snapshot().domains)).toEqual([instanceId('m-2')]);
    expect(Object.keys(f.b.snapshot().domains).sort()).toEqual([instanceId('m-1'), instanceId('m-3')].sort());
  });

  it('a request that cannot be placed whole is refused before anything is launched', async () => {
    const f = fixture({
      hosts: [
        { name: 'edge-a', freeMemoryBytes: 1 * GiB },
        { name: 'edge-b', freeMemoryBytes: 0.4 * GiB },
      ],
    });
    const before = f.snapshot();
    await expect(
      f.provider.launchMany(
        ['x-1', 'x-2', 'x-3'].map((name) => ({ name })),
        { kind: 'spread' },
      ),
    ).rejects.toThrow(/^cannot place 3 proxies: room for 2 of 3 proxies/);
    expect(f.snapshot()).toEqual(before);
  });

  it('cancelled: what finished stays, what had not started is not launched', async () => {
    const f = fixture();
    const controller = new AbortController();
    const out = await f.provider.launchMany(
      ['c-1', 'c-2', 'c-3'].map((name) => ({ name })),
      { kind: 'pack' },
      {
        parallel: 1,
        signal: controller.signal,
        onProxy: (_n, e) => e.phase === 'done' && controller.abort(new Error('stop')),
      },
    );
    expect(out.map((o) => o.ok)).toEqual([true, false, false]);
    expect(out.slice(1).every((o) => !o.ok && /cancelled/.test(o.error.message))).toBe(true);
    expect(Object.keys({ ...f.a.snapshot().domains, ...f.b.snapshot().domains })).toEqual([instanceId('c-1')]);
  });
});
