/**
 * The gateway's clients (electron/services/gateway/gateway-clients.ts and client-auth.ts,
 * issue 40): kept 0600 on the workstation, names checked, a name in use refused; a request
 * is let through only with a right password, from an allowed source, with a user name the
 * grammar takes; an unknown client and a wrong password get one answer, and no answer
 * holds a password.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { basicCredentials, checkClient, sourceAllowed } from '../../../electron/services/gateway/client-auth.js';
import {
  GatewayClientError,
  GatewayClientsStore,
  gatewayClientsPath,
  newGatewayPassword,
} from '../../../electron/services/gateway/gateway-clients.js';
import type { GatewayClient } from '../../../shared/gateway.js';
import { tempDir } from '../../support/temp-dir.js';

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('the gateway clients file', () => {
  it('adds with a generated password, keeps the file 0600, refuses a name in use and a bad name, removes', async () => {
    const file = gatewayClientsPath(tempDir('egress-gw-clients-'));
    const store = new GatewayClientsStore(file);
    expect(await store.list()).toEqual([]);
    const ci = await store.add({ name: 'ci' });
    expect(ci.password).toMatch(/^[A-Za-z0-9_-]{32}$/);
    await store.add({ name: 'ci-web', password: 'p'.repeat(12), allow: ['10.0.0.0/8'] });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      version: 1,
      clients: { ci, 'ci-web': { name: 'ci-web', password: 'p'.repeat(12), allow: ['10.0.0.0/8'] } },
    });
    await expect(store.add({ name: 'ci' })).rejects.toThrow(GatewayClientError);
    await expect(store.add({ name: 'ci-session-x' })).rejects.toThrow(/cannot hold "-session-"/);
    await expect(store.add({ name: 'web', password: 'short' })).rejects.toThrow(/12-128 characters/);
    await expect(store.add({ name: 'web', allow: ['10.0.0.0/33'] })).rejects.toThrow(/IP address or CIDR/);
    await store.remove('ci');
    expect((await new GatewayClientsStore(file).list()).map((c) => c.name)).toEqual(['ci-web']);
    await expect(store.remove('ci')).rejects.toThrow(/no gateway client is called "ci"/);
  });

  it('names the file and the field when the file is not a clients file', async () => {
    const file = join(tempDir('egress-gw-clients-'), 'gateway-clients.json');
    writeFileSync(file, JSON.stringify({ version: 1, clients: { x: { name: 'x', password: 1 } } }));
    await expect(new GatewayClientsStore(file).list()).rejects.toThrow(
      /gateway-clients\.json is not a valid gateway clients file: clients\.x\.password/,
    );
  });

  it('makes a new password each time', () => {
    expect(newGatewayPassword()).not.toBe(newGatewayPassword());
  });
});

describe('checking a request against the clients', () => {
  const clients: GatewayClient[] = [
    { name: 'ci', password: 'ci-password-1' },
    { name: 'ci-web', password: 'web-password-2', allow: ['10.1.0.0/16', '::1'] },
  ];

  it('reads Basic credentials, and nothing else', () => {
    expect(basicCredentials(basic('ci-session-1', 'a:b'))).toEqual({ user: 'ci-session-1', password: 'a:b' });
    expect(basicCredentials(undefined)).toBeUndefined();
    expect(basicCredentials('Bearer abc')).toBeUndefined();
    expect(basicCredentials(`Basic ${Buffer.from('nocolon').toString('base64')}`)).toBeUndefined();
  });

  it('lets a right client through with what its user name asks for', () => {
    expect(
      checkClient({ user: 'ci-session-7-label-team=web', password: 'ci-password-1' }, '127.0.0.1', clients),
    ).toEqual({
      ok: true,
      client: clients[0],
      user: { client: 'ci', session: '7', labels: { team: 'web' } },
    });
    const web = checkClient({ user: 'ci-web-host-edge-a', password: 'web-password-2' }, '::ffff:10.1.2.3', clients);
    expect(web.ok && web.user).toEqual({ client: 'ci-web', host: 'edge-a', labels: {} });
  });

  it('gives one answer for an unknown client and a wrong password, none with a password in it', () => {
    const unknown = checkClient({ user: 'nobody', password: 'ci-password-1' }, '127.0.0.1', clients);
    const wrong = checkClient({ user: 'ci', password: 'web-password-2' }, '127.0.0.1', clients);
    expect(unknown).toEqual({ ok: false, reason: 'unknown gateway client or wrong password' });
    expect(wrong).toEqual(unknown);
    expect(checkClient(undefined, '127.0.0.1', clients)).toEqual({
      ok: false,
      reason: 'the gateway needs a client name and password',
    });
  });

  it('tells what is wrong with the rest of a user name only once the password was right', () => {
    expect(checkClient({ user: 'ci-sesion-1', password: 'ci-password-1' }, '127.0.0.1', clients)).toEqual({
      ok: false,
      reason: expect.stringMatching(/^unknown part "sesion-1"/),
    });
    expect(checkClient({ user: 'ci-sesion-1', password: 'nope' }, '127.0.0.1', clients)).toEqual({
      ok: false,
      reason: 'unknown gateway client or wrong password',
    });
  });

  it("refuses a source outside the client's allow-list (IPv4 mapped into IPv6 read as IPv4)", () => {
    const from = (source: string) => checkClient({ user: 'ci-web', password: 'web-password-2' }, source, clients);
    expect(from('10.1.255.1').ok).toBe(true);
    expect(from('::1').ok).toBe(true);
    expect(from('10.2.0.1')).toEqual({
      ok: false,
      reason: 'the gateway client "ci-web" may not connect from 10.2.0.1',
    });
    expect(from('::ffff:10.2.0.1').ok).toBe(false);
    expect(sourceAllowed('::ffff:10.1.0.9', ['10.1.0.0/16'])).toBe(true);
    expect(sourceAllowed('192.168.1.1', ['10.1.0.0/16', '192.168.1.1'])).toBe(true);
  });
});
