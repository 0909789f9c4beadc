/** A proxy's key (shared/proxy-key.ts): the same string as before it had a type, a round trip, malformed keys refused. */
import { describe, expect, it } from 'vitest';
import { ProxyKeySchema, parseProxyKey, proxyKey, recordKey } from '../../../shared/proxy-key.js';

describe('proxy key', () => {
  it('is host/domain on the wire, as the stores and the backend always keyed proxies', () => {
    expect(proxyKey('edge-a', 'ep-web-1-abcdef')).toBe('edge-a/ep-web-1-abcdef');
    expect(recordKey({ host: 'edge-a', id: 'ep-web-1-abcdef' })).toBe(proxyKey('edge-a', 'ep-web-1-abcdef'));
  });

  it('parses back into the host and domain it was built from', () => {
    for (const [host, domain] of [
      ['edge-a', 'ep-web-1-abcdef'],
      ['local', 'x'],
      ['a.b-c_d', 'dom.with.dots'],
    ] as const) {
      expect(parseProxyKey(proxyKey(host, domain))).toEqual({ host, domain });
      expect(ProxyKeySchema.parse(proxyKey(host, domain))).toBe(`${host}/${domain}`);
    }
  });

  it('refuses what no host and domain make: no slash, an empty part, a second slash', () => {
    for (const bad of ['', 'edge-a', '/ep-web', 'edge-a/', '/', 'edge-a/ep/web', 'a//b']) {
      expect(parseProxyKey(bad)).toBeUndefined();
      expect(ProxyKeySchema.safeParse(bad).success).toBe(false);
    }
  });

  it('still builds a key for a removal whose host is unknown (it matches no proxy, as before)', () => {
    expect(proxyKey('', 'ep-gone')).toBe('/ep-gone');
    expect(parseProxyKey(proxyKey('', 'ep-gone'))).toBeUndefined();
  });
});
