/** The one home of each small helper (shared/net.ts, shared/bytes.ts, shared/errors.ts): what every layer relies on. */
import { describe, expect, it } from 'vitest';
import { formatBytes } from '../../../shared/bytes.js';
import { isValidAddress } from '../../../shared/config.js';
import { messageOf } from '../../../shared/errors.js';
import { bracketHost, isCidr, isIpv4, isIpv6 } from '../../../shared/net.js';

describe('addresses', () => {
  it('brackets an IPv6 address for host:port and URLs, and nothing else', () => {
    expect(['2001:db8::1', '::1', '10.0.0.1', 'edge-a.example'].map(bracketHost)).toEqual([
      '[2001:db8::1]',
      '[::1]',
      '10.0.0.1',
      'edge-a.example',
    ]);
  });

  it('checks IPv4 and IPv6 the same way for a host address and for an Allow entry', () => {
    const cases: Array<[string, boolean, boolean]> = [
      ['10.0.0.1', true, false],
      ['256.0.0.1', false, false],
      ['01.2.3.4', false, false],
      ['2001:db8::1', false, true],
      ['::ffff:192.0.2.1', false, true],
      ['1::2::3', false, false],
      [':::', false, false],
      ['1:2:3:4:5:6:7:8:9', false, false],
    ];
    for (const [value, v4, v6] of cases) {
      expect([isIpv4(value), isIpv6(value)], value).toEqual([v4, v6]);
      // The config's address and tinyproxy's Allow agree on every literal address.
      expect(isCidr(value), value).toBe(v4 || v6);
      // A name with a colon can only be an IPv6 address (digits and dots may be a hostname).
      if (value.includes(':')) expect(isValidAddress(value), value).toBe(v6);
    }
  });

  it('takes prefix lengths up to 32 and 128, and an IPv6 zone only in a host address', () => {
    expect(['10.0.0.0/8', '10.0.0.0/32', 'fd00::/8', '::/0', '2001:db8::/128'].every(isCidr)).toBe(true);
    expect(['10.0.0.0/33', 'fd00::/129', '10.0.0.0/', 'fd00::/8/8'].some(isCidr)).toBe(false);
    expect(isValidAddress('fe80::1%eth0')).toBe(true);
    expect(isCidr('fe80::1%eth0')).toBe(false);
    expect(isValidAddress('1::2::3%eth0')).toBe(false);
  });
});

describe('formatBytes and messageOf', () => {
  it('print a byte count one way: exact below 1 KiB, else binary units with one decimal', () => {
    expect([0, 1023, 1024, 1536, 16 * 1024 ** 2, 5 * 1024 ** 3].map(formatBytes)).toEqual([
      '0 B',
      '1023 B',
      '1.0 KiB',
      '1.5 KiB',
      '16.0 MiB',
      '5.0 GiB',
    ]);
    // A rate (bytes over seconds) below 1 KiB is whole too.
    expect(formatBytes(83.97900524868783)).toBe('84 B');
  });

  it('say an error by its message, and anything else as text', () => {
    expect([messageOf(new TypeError('bad')), messageOf('plain'), messageOf(42)]).toEqual(['bad', 'plain', '42']);
  });
});
