/**
 * Client settings for the gateway (shared/gateway-client-settings.ts, issue 40): the user
 * name carries the selection and is refused with the gateway's own reason where the gateway
 * would refuse it; the address and port come from the running gateway, else its settings;
 * the Gateway view's fields are checked one by one so that each problem stands under its
 * field; the channel's input schema bounds what crosses and is strict.
 */
import { describe, expect, it } from 'vitest';
import {
  GatewayClientSettingsError,
  GatewayClientSettingsInputSchema,
  buildGatewayClientSettings,
  checkGatewaySelection,
  gatewayEndpoint,
  gatewayUserFor,
} from '../../../shared/gateway-client-settings.js';
import { type GatewayStatus, GatewaySettingsSchema } from '../../../shared/gateway.js';
import { parseGatewayUser } from '../../../shared/gateway-user.js';

const client = { name: 'ci', password: 'pw-123456789012' };
const at = { address: '127.0.0.1', port: 3130 };

const status = (over: Partial<GatewayStatus> = {}): GatewayStatus => ({
  settings: GatewaySettingsSchema.parse({}),
  running: false,
  clients: [],
  members: [],
  totals: { requests: 0, bytesIn: 0, bytesOut: 0, requestsPerSecond: 0, bytesPerSecond: 0 },
  logFile: '/d/logs/gateway-access.log',
  ...over,
});

describe('gatewayUserFor', () => {
  it('formats the selection as a user name the gateway parses back to it', () => {
    const made = gatewayUserFor('ci', { session: 's1', labels: { team: 'web', env: 'prod' }, host: 'edge-a' });
    expect(made).toEqual({ ok: true, user: 'ci-session-s1-label-env=prod-label-team=web-host-edge-a' });
    expect(parseGatewayUser(made.ok ? made.user : '', ['ci'])).toEqual({
      ok: true,
      user: { client: 'ci', session: 's1', labels: { env: 'prod', team: 'web' }, host: 'edge-a' },
    });
    expect(gatewayUserFor('ci', {})).toEqual({ ok: true, user: 'ci' });
  });

  it("refuses what the gateway refuses, with the gateway's reason", () => {
    expect(gatewayUserFor('ci', { session: 'a-b' })).toEqual({
      ok: false,
      reason: expect.stringContaining('a session ID must be 1-64 letters') as string,
    });
    expect(gatewayUserFor('ci', { host: 'Edge_A' })).toMatchObject({ ok: false, reason: /a host must be/ });
    expect(gatewayUserFor('ci', { labels: { Team: 'x' } })).toMatchObject({ ok: false, reason: /a label part/ });
  });
});

describe('gatewayEndpoint', () => {
  it('the running listener first, loopback for a wildcard bind', () => {
    const running = status({ running: true, address: '0.0.0.0', port: 41000, socksPort: 41001 });
    expect(gatewayEndpoint(running, false)).toEqual({ ok: true, address: '127.0.0.1', port: 41000 });
    expect(gatewayEndpoint(running, true)).toEqual({ ok: true, address: '127.0.0.1', port: 41001 });
    expect(gatewayEndpoint(status({ running: true, address: '::1', port: 5 }), false)).toEqual({
      ok: true,
      address: '::1',
      port: 5,
    });
  });

  it("while off, the settings' address and ports; none for a port chosen at start or no SOCKS5 listener", () => {
    expect(gatewayEndpoint(status(), true)).toEqual({ ok: true, address: '127.0.0.1', port: 3131 });
    const settings = GatewaySettingsSchema.parse({ port: 0, socksPort: null });
    expect(gatewayEndpoint(status({ settings }), false)).toMatchObject({ ok: false, reason: /port 0.*turn it on/ });
    expect(gatewayEndpoint(status({ settings }), true)).toMatchObject({ ok: false, reason: /no SOCKS5 listener/ });
  });
});

describe('buildGatewayClientSettings', () => {
  it('one proxy named gateway, the user name and password only with credentials', () => {
    const bare = buildGatewayClientSettings('urls', { client, ...at, session: 's1' });
    expect(bare).toEqual({
      user: 'ci-session-s1',
      file: { text: 'http://127.0.0.1:3130\n', fileName: 'gateway.txt', mediaType: 'text/plain' },
    });
    const full = buildGatewayClientSettings('env', { client, ...at, session: 's1', withCredentials: true });
    expect(full.file.text).toContain("export HTTP_PROXY='http://ci-session-s1:pw-123456789012@127.0.0.1:3130'");
    const socks = buildGatewayClientSettings('curl', { client, ...at, port: 3131, socks: true });
    expect(socks.file.text).toContain('socks5-hostname = "127.0.0.1:3131"');
  });

  it('PAC: the listener, never the credentials', () => {
    const pac = buildGatewayClientSettings('pac', { client, ...at, withCredentials: true });
    expect(pac.file.text).toContain('return "PROXY 127.0.0.1:3130";');
    expect(pac.file.text).not.toContain(client.password);
    expect(pac.file.fileName).toBe('gateway.pac');
    expect(buildGatewayClientSettings('pac', { client, ...at, socks: true }).file.text).toContain('"SOCKS5 127.0.0.1');
  });

  it("refuses a user name the gateway would refuse, with the gateway's reason", () => {
    expect(() => buildGatewayClientSettings('env', { client, ...at, session: 'a b' })).toThrow(
      GatewayClientSettingsError,
    );
    expect(() => buildGatewayClientSettings('env', { client, ...at, host: '-x' })).toThrow(/a host must be/);
  });
});

describe('checkGatewaySelection (the Gateway view’s fields)', () => {
  it('accepts empty fields (the plain client) and typed ones, trimmed, labels as key=value words', () => {
    expect(checkGatewaySelection('desk', { session: '', labels: '', host: '' })).toEqual({
      ok: true,
      selection: {},
      user: 'desk',
    });
    expect(checkGatewaySelection('desk', { session: ' s1 ', labels: 'team=web, env=prod', host: 'edge-a' })).toEqual({
      ok: true,
      selection: { session: 's1', labels: { team: 'web', env: 'prod' }, host: 'edge-a' },
      user: 'desk-session-s1-label-env=prod-label-team=web-host-edge-a',
    });
  });

  it('puts each problem under its own field', () => {
    const checked = checkGatewaySelection('desk', { session: 'a-b', labels: 'team', host: 'Edge' });
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.problems.session).toMatch(/a session ID must be/);
    expect(checked.problems.labels).toMatch(/a label is key=value/);
    expect(checked.problems.host).toMatch(/a host must be/);
    const one = checkGatewaySelection('desk', { session: 'ok', labels: '', host: 'Edge' });
    expect(one.ok ? {} : one.problems).toEqual({ host: expect.stringMatching(/a host must be/) as string });
  });
});

describe('the channel input', () => {
  it('takes the selection and the options, strictly, with bounded values', () => {
    const input = { format: 'pac', session: 's', labels: { a: 'b' }, host: 'h', socks: true, withCredentials: true };
    expect(GatewayClientSettingsInputSchema.parse(input)).toEqual(input);
    expect(GatewayClientSettingsInputSchema.safeParse({ format: 'env', extra: 1 }).success).toBe(false);
    expect(GatewayClientSettingsInputSchema.safeParse({ format: 'xml' }).success).toBe(false);
    expect(GatewayClientSettingsInputSchema.safeParse({ format: 'env', session: 'x'.repeat(257) }).success).toBe(false);
    expect(GatewayClientSettingsInputSchema.safeParse({ format: 'env', client: 'ci-session-x' }).success).toBe(false);
  });
});
