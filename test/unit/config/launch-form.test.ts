/**
 * The Launch dialog's checks (shared/launch-form.ts) say what ProxySpecSchema says, at
 * the edges of each limit: a form the dialog accepts is a request the backend accepts,
 * and one it refuses is refused there too.
 */
import { describe, expect, it } from 'vitest';
import { DNS_LABEL, DNS_LABEL_MAX } from '../../../shared/config.js';
import {
  type LaunchForm,
  allowError,
  formToSpec,
  launchFormErrors,
  nameError,
  portError,
} from '../../../shared/launch-form.js';
import { PROXY_ALLOW_MAX, PROXY_PORT_MAX, PROXY_PORT_MIN, ProxySpecSchema } from '../../../shared/proxy.js';

const form = (over: Partial<LaunchForm>): LaunchForm => ({
  name: 'web-1',
  host: '',
  machineType: '',
  image: '',
  port: '',
  allow: '',
  ...over,
});
const accepted = (f: LaunchForm) => ProxySpecSchema.safeParse(formToSpec(f)).success;
const entries = (n: number) => Array.from({ length: n }, (_, i) => `10.0.${Math.floor(i / 256)}.${i % 256}`).join(' ');

describe('launch form', () => {
  it('agrees with the schema at the edges of every limit', () => {
    const cases: LaunchForm[] = [
      form({ name: 'a'.repeat(DNS_LABEL_MAX) }),
      form({ name: 'a'.repeat(DNS_LABEL_MAX + 1) }),
      form({ name: '-web' }),
      form({ name: 'Web' }),
      form({ port: String(PROXY_PORT_MIN) }),
      form({ port: String(PROXY_PORT_MIN - 1) }),
      form({ port: String(PROXY_PORT_MAX) }),
      form({ port: String(PROXY_PORT_MAX + 1) }),
      form({ port: '3128.5' }),
      form({ allow: entries(PROXY_ALLOW_MAX) }),
      form({ allow: entries(PROXY_ALLOW_MAX + 1) }),
      form({ allow: '10.0.0.0/8, fd00::/8' }),
      form({ allow: '10.0.0.0/33' }),
    ];
    for (const f of cases) {
      const errors = launchFormErrors(f);
      const formAccepts = !errors.name && !errors.port && !errors.allow;
      expect({ f, formAccepts }).toEqual({ f, formAccepts: accepted(f) });
    }
  });

  it('says which limit, in the words the dialog showed', () => {
    expect(nameError('')).toBe('A name is required.');
    expect(nameError('a'.repeat(DNS_LABEL_MAX + 1))).toBe(`At most ${DNS_LABEL_MAX} characters.`);
    expect(nameError('Web')).toMatch(/lowercase letters only/);
    expect(nameError('web-')).toMatch(/lowercase DNS label/);
    expect(portError('0')).toBe(`A port is a whole number from ${PROXY_PORT_MIN} to ${PROXY_PORT_MAX}.`);
    expect(portError('')).toBeUndefined();
    expect(allowError('10.0.0.1 nope')).toBe('Not an IP address or CIDR block: nope');
    expect(allowError(entries(PROXY_ALLOW_MAX + 1))).toBe(`At most ${PROXY_ALLOW_MAX} entries.`);
  });

  it('DNS_LABEL allows exactly DNS_LABEL_MAX characters', () => {
    expect(DNS_LABEL.test('a'.repeat(DNS_LABEL_MAX))).toBe(true);
    expect(DNS_LABEL.test('a'.repeat(DNS_LABEL_MAX + 1))).toBe(false);
  });

  it('leaves empty fields out of the request, so defaults and placement apply', () => {
    expect(formToSpec(form({}))).toEqual({ name: 'web-1' });
    expect(
      formToSpec(
        form({
          host: 'edge-a',
          machineType: 'small',
          image: 'debian-12',
          port: '8080',
          allow: '10.0.0.0/8,\n192.168.0.0/16',
        }),
      ),
    ).toEqual({
      name: 'web-1',
      host: 'edge-a',
      machineType: 'small',
      image: 'debian-12',
      port: 8080,
      allow: ['10.0.0.0/8', '192.168.0.0/16'],
    });
  });
});
