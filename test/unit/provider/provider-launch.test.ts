import { describe, expect, it } from 'vitest';
import { ConnectionClosedError } from '../../../electron/libvirt/index.js';
import {
  AlreadyExistsError,
  LAUNCH_STEPS,
  LaunchError,
  LaunchTimeoutError,
  type LaunchStep,
} from '../../../electron/services/provider/kvm/errors.js';
import { BaseImages, PoolFullError, STALE_MS } from '../../../electron/services/provider/kvm/images/base-image.js';
import { HostQueues } from '../../../electron/services/provider/kvm/images/host-queue.js';
import { baseVolumeName, instanceId, instanceVolumes } from '../../../electron/services/provider/kvm/names.js';
import type { LibvirtApi } from '../../../electron/services/provider/kvm/libvirt-api.js';
import { fixture } from './provider-fixture.js';

type Fault = {
  step: LaunchStep;
  op?: keyof LibvirtApi;
  nth?: number;
  setup?: (f: ReturnType<typeof fixture>) => void;
  extra?: Record<string, unknown>;
};

/** Faults, one per step (and per call where a step makes several), on a host whose base volume is already there. */
const FAULTS: Fault[] = [
  { step: 'validate', extra: { name: 'Not_A_Label' } },
  { step: 'validate', extra: { machineType: 'huge' } },
  { step: 'place', op: 'poolInfo' },
  { step: 'place', op: 'kvmOffered' },
  { step: 'image', setup: (f) => (f.imageCalls.fail = new Error('download refused')) },
  { step: 'image', op: 'getVolume' },
  { step: 'upload', op: 'getVolume', nth: 2 },
  { step: 'volumes', op: 'createVolume', nth: 1 },
  { step: 'seed', op: 'createVolume', nth: 2 },
  { step: 'seed', op: 'uploadVolume', nth: 1 },
  { step: 'define', op: 'defineDomain' },
  { step: 'boot', op: 'startDomain' },
];

async function warm(f: ReturnType<typeof fixture>) {
  await f.provider.launch({ name: 'first', host: 'edge-a' }, { wait: true });
}

describe('transactional launch', () => {
  for (const fault of FAULTS) {
    it(`a failure at step "${fault.step}"${fault.op ? ` (${fault.op} #${fault.nth ?? 1})` : ''} removes exactly what the launch created`, async () => {
      const f = fixture();
      await warm(f);
      const before = f.snapshot();
      const creds = [...f.credentials.entries];
      if (fault.op) f.a.failOn(fault.op, fault.nth ?? 1);
      fault.setup?.(f);
      const err = await f.provider
        .launch({ name: 'second', host: 'edge-a', ...fault.extra }, { wait: true })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LaunchError);
      expect((err as LaunchError).step).toBe(fault.step);
      expect((err as LaunchError).message).toMatch(new RegExp(`step "${fault.step}"`));
      expect((err as LaunchError).rollbackErrors).toEqual([]);
      expect(f.snapshot()).toEqual(before);
      expect([...f.credentials.entries]).toEqual(creds);
      expect(f.a.overlaps).toEqual([]);
    });
  }

  it('on a cold host, a failure after the upload keeps only the (complete, shared) base volume', async () => {
    const f = fixture();
    const before = f.snapshot();
    f.a.failOn('startDomain');
    await expect(f.provider.launch({ name: 'p', host: 'edge-a' })).rejects.toMatchObject({ step: 'boot' });
    const after = f.snapshot();
    expect(after['edge-a']!.domains).toEqual(before['edge-a']!.domains);
    expect(after['edge-a']!.volumes.default).toEqual([baseVolumeName(f.image.sha256, 'qcow2')]);
  });

  it('a failed base upload leaves no half-uploaded base behind', async () => {
    const f = fixture();
    const before = f.snapshot();
    f.a.failOn('uploadVolume', 1);
    await expect(f.provider.launch({ name: 'p', host: 'edge-a' })).rejects.toMatchObject({ step: 'upload' });
    expect(f.snapshot()).toEqual(before);
  });

  it('a half-uploaded base volume of the wrong size is replaced; a complete one is reused without upload', async () => {
    const f = fixture();
    const base = baseVolumeName(f.image.sha256, 'qcow2');
    f.a.addVolume('default', base, 16 * 1024 * 1024, 4096);
    await f.provider.launch({ name: 'p1', host: 'edge-a' });
    expect(f.a.calls).toContain(`deleteVolume:${base}`);
    expect(f.a.pools.get('default')!.volumes.get(base)!.allocationBytes).toBe(f.image.size);
    const uploads = f.a.count('uploadVolume');
    await f.provider.launch({ name: 'p2', host: 'edge-a' });
    expect(f.a.count('uploadVolume')).toBe(uploads + 1); // the seed only
  });

  it('an incomplete base volume written to a moment ago is another process uploading it: waited for, never deleted; an old one is replaced', async () => {
    const f = fixture();
    const base = baseVolumeName(f.image.sha256, 'qcow2');
    f.a.addVolume('default', base, 16 * 1024 * 1024, 4096);
    const vol = f.a.pools.get('default')!.volumes.get(base)!;
    vol.changedAt = Date.now();
    // The other process finishes its upload a little later.
    setTimeout(() => {
      vol.allocationBytes = f.image.size;
      vol.changedAt = Date.now();
    }, 700);
    await f.provider.launch({ name: 'waiter', host: 'edge-a' });
    expect(f.a.calls).not.toContain(`deleteVolume:${base}`);
    expect(f.a.count('uploadVolume')).toBe(1); // the seed only
    // Untouched for longer than STALE_MS: an abandoned upload, replaced.
    const f2 = fixture();
    f2.a.addVolume('default', base, 16 * 1024 * 1024, 4096);
    f2.a.pools.get('default')!.volumes.get(base)!.changedAt = Date.now() - STALE_MS - 1_000;
    await f2.provider.launch({ name: 'p', host: 'edge-a' });
    expect(f2.a.calls).toContain(`deleteVolume:${base}`);
  });

  it('timeout without rollback leaves the VM and says what was seen; with rollback removes it', async () => {
    const f = fixture();
    await warm(f);
    const before = f.snapshot();
    f.probe.open = false;
    const err = await f.provider
      .launch({ name: 'slow', host: 'edge-a' }, { wait: true, timeoutMs: 200 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LaunchTimeoutError);
    expect((err as LaunchTimeoutError).message).toMatch(
      /DHCP lease 192\.168\.122\.\d+; guest agent not answering .*; port 3128 closed/,
    );
    expect((err as LaunchTimeoutError).message).toMatch(/left running for inspection/);
    expect(f.a.snapshot().domains[instanceId('slow')]).toBe('running');

    f.a.autoLease = false;
    const err2 = await f.provider
      .launch({ name: 'slower', host: 'edge-a' }, { wait: true, timeoutMs: 200, rollbackOnTimeout: true })
      .catch((e: unknown) => e);
    expect(err2).toBeInstanceOf(LaunchTimeoutError);
    expect((err2 as LaunchTimeoutError).step).toBe('address');
    expect((err2 as LaunchTimeoutError).message).toMatch(
      /no DHCP lease for 52:54:00:[0-9a-f:]+ on network default yet/,
    );
    expect(f.a.snapshot().domains[instanceId('slower')]).toBeUndefined();
    expect(f.a.snapshot().volumes.default).toEqual(
      [...before['edge-a']!.volumes.default!, ...Object.values(instanceVolumes(instanceId('slow')))].sort(),
    );
  });

  it('ready: the URL carries the generated credentials and the lease address; steps are reported in order', async () => {
    const f = fixture();
    const steps: string[] = [];
    const r = await f.provider.launch(
      { name: 'web', host: 'edge-a' },
      { wait: true, onStep: (e) => e.phase === 'start' && steps.push(e.step) },
    );
    // The app draws its progress list from LAUNCH_STEPS: a launch that waits reports every one of them, in that order.
    expect(steps).toEqual([...LAUNCH_STEPS]);
    expect(r.url).toMatch(/^http:\/\/egress:generated-1@192\.168\.122\.\d+:3128$/);
    expect(r.proxy).toMatchObject({ name: 'web', host: 'edge-a', state: 'running', port: 3128 });
    expect(await f.credentials.get('web')).toEqual({ username: 'egress', password: 'generated-1' });
    expect(f.a.snapshot().domains[instanceId('web')]).toBe('running');
    expect(JSON.stringify(f.a.domains.get(instanceId('web'))!.xml)).not.toContain('generated-1');
  });

  it('an existing name: identical spec → the existing proxy; different spec → AlreadyExistsError', async () => {
    const f = fixture();
    await f.provider.launch({ name: 'same', host: 'edge-a' });
    const before = f.snapshot();
    const again = await f.provider.launch({ name: 'same', host: 'edge-a' });
    expect(again.created).toBe(false);
    expect(again.proxy.name).toBe('same');
    await expect(f.provider.launch({ name: 'same', port: 8080 })).rejects.toBeInstanceOf(AlreadyExistsError);
    await expect(f.provider.launch({ name: 'same', host: 'edge-b' })).rejects.toBeInstanceOf(AlreadyExistsError);
    expect(f.snapshot()).toEqual(before);
  });

  it('domain type: auto → kvm when offered, else qemu; explicit types as given', async () => {
    const f = fixture();
    f.b.kvm = false;
    await f.provider.launch({ name: 'k', host: 'edge-a' });
    await f.provider.launch({ name: 'q', host: 'edge-b' });
    expect(f.a.domains.get(instanceId('k'))!.xml).toMatch(/<domain type="kvm"/);
    expect(f.b.domains.get(instanceId('q'))!.xml).toMatch(/<domain type="qemu"/);
  });
});

describe('concurrency', () => {
  it('ten launches at once on two hosts: no duplicates, no orphans, pool jobs serialised, one base upload per host', async () => {
    const f = fixture();
    const names = Array.from({ length: 10 }, (_, i) => `c-${i}`);
    const results = await Promise.all(
      names.map((name, i) => f.provider.launch({ name, host: i % 2 ? 'edge-b' : 'edge-a' })),
    );
    expect(results.every((r) => r.created)).toBe(true);
    for (const h of [f.a, f.b]) {
      expect(h.overlaps).toEqual([]);
      expect(Object.keys(h.snapshot().domains)).toHaveLength(5);
      const vols = h.snapshot().volumes.default!;
      expect(vols).toHaveLength(11);
      expect(vols.filter((v) => v.startsWith('egress-base-'))).toHaveLength(1);
      expect(h.calls.filter((c) => c.startsWith('uploadVolume:egress-base-'))).toHaveLength(1);
    }
    const listing = await f.provider.list();
    expect(listing.proxies.map((p) => p.name).sort()).toEqual([...names].sort());
    expect((await f.provider.reconcile()).findings).toEqual([]);
  });

  it('two launches of one name at once: one proxy, the other gets the same proxy back', async () => {
    const f = fixture();
    const [x, y] = await Promise.all([
      f.provider.launch({ name: 'dup', host: 'edge-a' }),
      f.provider.launch({ name: 'dup', host: 'edge-a' }),
    ]);
    expect([x.created, y.created].sort()).toEqual([false, true]);
    expect(Object.keys(f.a.snapshot().domains)).toEqual([instanceId('dup')]);
  });
});

describe('placement', () => {
  it('picks the host with the most free memory and says why', async () => {
    const f = fixture();
    const r = await f.provider.launch({ name: 'auto' });
    expect(r.proxy.host).toBe('edge-b');
    expect(r.placement).toBe('edge-b: most free memory (12.3 GiB) with room in pool default');
  });

  it('skips a host whose pool has no room, and one that is down', async () => {
    const f = fixture({
      hosts: [
        { name: 'edge-a', freeMemoryBytes: 2 * 1024 ** 3 },
        { name: 'edge-b', freeMemoryBytes: 64 * 1024 ** 3, pools: [{ name: 'default', capacityBytes: 1024 ** 3 }] },
      ],
    });
    expect((await f.provider.launch({ name: 'p1' })).proxy.host).toBe('edge-a');
    f.a.down = true;
    const err = await f.provider.launch({ name: 'p2' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ step: 'place' });
    expect((err as Error).message).toMatch(
      /edge-a: not reachable.*edge-b: pool default has 1\.0 GiB \(1073741824 bytes\) free, the disk needs 10\.0 GiB \(10737418240 bytes\)|edge-b: pool default has 1\.0 GiB.*edge-a: not reachable/,
    );
  });

  it('skips a host without enough free memory for the machine type', async () => {
    const f = fixture({
      hosts: [
        { name: 'edge-a', freeMemoryBytes: 4 * 1024 ** 3 },
        { name: 'edge-b', freeMemoryBytes: 100 * 1024 ** 2 },
      ],
    });
    expect((await f.provider.launch({ name: 'p1' })).proxy.host).toBe('edge-a');
    f.a.down = true;
    const err = await f.provider.launch({ name: 'p2' }).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/edge-b: 100 MiB of memory free, the machine type needs 512 MiB/);
  });

  it('an explicit host whose pool has no room is refused before anything is created, with the bytes', async () => {
    const f = fixture({
      hosts: [{ name: 'edge-a', pools: [{ name: 'default', capacityBytes: 1024 ** 3 }] }, { name: 'edge-b' }],
    });
    const before = f.snapshot();
    const err = await f.provider.launch({ name: 'p', host: 'edge-a' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ step: 'place' });
    expect((err as Error).message).toContain(
      "edge-a: pool default has 1.0 GiB (1073741824 bytes) free, the proxy's disk may grow to 10.0 GiB (10737418240 bytes)",
    );
    expect(f.snapshot()).toEqual(before);
  });

  it("a base image bigger than the pool's free space is refused before the base volume is created", async () => {
    const f = fixture();
    f.a.pools.get('default')!.capacityBytes = f.image.size - 1;
    const before = f.snapshot();
    const err = await new BaseImages(new HostQueues())
      .ensure('edge-a', f.a, 'default', { ...f.image, format: 'qcow2' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PoolFullError);
    expect((err as Error).message).toMatch(
      new RegExp(
        `^edge-a: pool default has \\d+ MiB \\(${f.image.size - 1} bytes\\) free, the image egress-base-[0-9a-f]{64}\\.qcow2 needs \\d+ MiB \\(${f.image.size} bytes\\); free space in the pool`,
      ),
    );
    expect(f.snapshot()).toEqual(before);
  });

  it('a network that is not active (or missing) is refused at "place", asked for or placed; the other host is taken', async () => {
    const f = fixture();
    f.a.inactiveNetworks.add('default');
    const before = f.snapshot();
    await expect(f.provider.launch({ name: 'p', host: 'edge-a' })).rejects.toMatchObject({
      step: 'place',
      message: expect.stringContaining(
        'edge-a: network default is not active (start it with virsh net-start default, or choose another host)',
      ),
    });
    expect(f.snapshot()).toEqual(before);
    f.b.inactiveNetworks.add('default');
    await expect(f.provider.launch({ name: 'p' })).rejects.toMatchObject({
      step: 'place',
      message: expect.stringMatching(
        /edge-a: network default is not active.*edge-b: network default is not active|edge-b: network default is not active.*edge-a: network default is not active/,
      ),
    });
    f.b.inactiveNetworks.clear();
    expect((await f.provider.launch({ name: 'p' })).proxy.host).toBe('edge-b');
    f.b.networks.clear();
    await expect(f.provider.launch({ name: 'q', host: 'edge-b' })).rejects.toMatchObject({
      step: 'place',
      message: expect.stringContaining('edge-b: network default does not exist there'),
    });
  });

  it('a failed upload whose connection is gone removes the half-written base on a reopened connection', async () => {
    const f = fixture();
    const base = baseVolumeName(f.image.sha256, 'qcow2');
    f.a.failOn('uploadVolume', 1);
    f.a.failOn('deleteVolume', 1);
    const err = await f.provider.launch({ name: 'p', host: 'edge-a' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ step: 'upload' });
    expect((err as Error).message).not.toMatch(/is left in pool/);
    expect(f.a.pools.get('default')!.volumes.has(base)).toBe(false);
    expect(f.a.count('deleteVolume')).toBe(2);
  });

  it('a rollback whose connection is gone is done on a reopened one once the host answers again', async () => {
    const f = fixture();
    await warm(f);
    const before = f.snapshot();
    f.a.failOn('startDomain');
    f.a.failOn('undefineDomain', 1, new ConnectionClosedError('the daemon went away'));
    f.a.failOn('undefineDomain', 2, new ConnectionClosedError('the daemon went away'));
    const err = await f.provider.launch({ name: 'second', host: 'edge-a' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ step: 'boot', rollbackErrors: [] });
    expect(f.a.count('undefineDomain')).toBe(3);
    expect(f.snapshot()).toEqual(before);
  });

  it('a wait whose connection is gone fails at once naming why, and rolls back', async () => {
    const f = fixture();
    await warm(f);
    const before = f.snapshot();
    f.probe.open = false;
    f.a.failOn('dhcpLeases', 1, new ConnectionClosedError('the daemon went away'));
    const t0 = Date.now();
    const err = await f.provider
      .launch({ name: 'second', host: 'edge-a' }, { wait: true, timeoutMs: 60_000 })
      .catch((e: unknown) => e);
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(err).toBeInstanceOf(LaunchError);
    expect((err as LaunchError).message).toMatch(/^launch failed at step "address": .*the daemon went away/);
    expect(f.snapshot()).toEqual(before);
  });

  it('when the half-written base cannot be removed at all, the error says it is left, never used, and replaced later', async () => {
    const f = fixture();
    f.a.failOn('uploadVolume', 1);
    for (let i = 1; i <= 5; i++) f.a.failOn('deleteVolume', i);
    const err = await f.provider.launch({ name: 'p', host: 'edge-a' }).catch((e: unknown) => e);
    expect(err).toMatchObject({
      step: 'upload',
      message: expect.stringMatching(
        /injected failure of uploadVolume; the incomplete base volume egress-base-[0-9a-f]{64}\.qcow2 is left in pool default \(.*\): it is never used, and a launch on this host replaces it once it has been untouched for 60 s/,
      ),
    });
  });

  it('an explicit host that is not in the config is a placement error', async () => {
    const f = fixture();
    await expect(f.provider.launch({ name: 'p', host: 'nowhere' })).rejects.toMatchObject({
      step: 'validate',
      message: expect.stringMatching(/no host named "nowhere"/),
    });
  });
});
