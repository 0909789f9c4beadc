import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DNS_LABEL } from '../../../shared/config.js';

const CREATED = '2026-01-01T00:00:00.000Z';
import {
  InvalidNameError,
  baseVolumeName,
  instanceId,
  instanceMac,
  instanceOfVolume,
  instanceUuid,
  instanceVolumes,
  isInstanceVolume,
} from '../../../electron/services/provider/kvm/names.js';

const dnsLabel = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/);

describe('instance names', () => {
  it('derives a stable, prefixed id with a short suffix', () => {
    const id = instanceId('web-1');
    expect(id).toMatch(/^ep-web-1-[a-z2-7]{6}$/);
    expect(instanceId('web-1')).toBe(id);
    expect(instanceId('web-2')).not.toBe(id);
  });

  it('keeps every id a DNS label of at most 63 characters, distinct for long names sharing a prefix', () => {
    fc.assert(
      fc.property(dnsLabel, (name) => {
        const id = instanceId(name);
        expect(id.length).toBeLessThanOrEqual(63);
        expect(DNS_LABEL.test(id)).toBe(true);
      }),
    );
    const a = `${'a'.repeat(60)}-1`;
    const b = `${'a'.repeat(60)}-2`;
    expect(instanceId(a)).not.toBe(instanceId(b));
    // A cut that would end in "-" is trimmed.
    expect(instanceId(`${'a'.repeat(52)}-bbbbbbbbb`)).toMatch(/^ep-a{52}-[a-z2-7]{6}$/);
  });

  it.each(['', 'Web', 'web_1', '-web', 'web-', 'a'.repeat(64), 'wéb', 'a b', 'a\nb', '<x>', 'x;rm'])(
    'rejects %j',
    (name) => {
      expect(() => instanceId(name)).toThrow(InvalidNameError);
    },
  );

  it('names volumes after the id and recognises them', () => {
    const id = instanceId('web-1');
    const vols = instanceVolumes(id);
    expect(vols).toEqual({ root: `${id}-root.qcow2`, seed: `${id}-seed.iso` });
    expect(isInstanceVolume(vols.root)).toBe(true);
    expect(isInstanceVolume(vols.seed)).toBe(true);
    expect(instanceOfVolume(vols.seed)).toBe(id);
    expect(isInstanceVolume('debian.qcow2')).toBe(false);
    expect(isInstanceVolume(`${id}-root.raw`)).toBe(false);
  });

  it('names base volumes by digest', () => {
    const digest = 'ab'.repeat(32);
    expect(baseVolumeName(digest, 'qcow2')).toBe(`egress-base-${digest}.qcow2`);
    expect(baseVolumeName(digest, 'raw')).toBe(`egress-base-${digest}.img`);
    expect(() => baseVolumeName('AB'.repeat(32), 'qcow2')).toThrow();
  });

  it('derives a QEMU-range MAC per launch and a stable RFC 9562 UUID', () => {
    const id = instanceId('web-1');
    expect(instanceMac(id, CREATED)).toMatch(/^52:54:00(:[0-9a-f]{2}){3}$/);
    expect(instanceMac(id, CREATED)).toBe(instanceMac(id, CREATED));
    expect(instanceMac(id, CREATED)).not.toBe(instanceMac(instanceId('web-2'), CREATED));
    // Each launch of a name gets its own MAC: leases of an earlier instance never match a new one.
    expect(instanceMac(id, '2026-01-01T00:00:01.000Z')).not.toBe(instanceMac(id, CREATED));
    expect(instanceUuid(id)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(instanceUuid(id)).toBe(instanceUuid(id));
  });
});
