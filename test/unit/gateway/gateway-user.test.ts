/**
 * The gateway's user-name grammar (shared/gateway-user.ts, issue 40): examples of each part
 * and of each refusal, then properties: any user the patterns allow, formatted, parses back
 * to itself; and any string at all parses to a user or a refusal with a reason, never a
 * throw, and a parsed user is always one of the gateway's clients.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type GatewayUser,
  formatGatewayUser,
  gatewayClientNameProblem,
  parseGatewayUser,
} from '../../../shared/gateway-user.js';
import { FUZZ_TEST_TIMEOUT_MS, fuzzParams } from '../fuzz/fuzz-params.js';

const CLIENTS = ['ci', 'ci-web', 'team-a'];
const parse = (name: string) => parseGatewayUser(name, CLIENTS);
const user = (over: Partial<GatewayUser> & { client: string }): GatewayUser => ({ labels: {}, ...over });

describe('the gateway user-name grammar', () => {
  it.each([
    ['ci', user({ client: 'ci' })],
    ['ci-session-a1', user({ client: 'ci', session: 'a1' })],
    ['ci-web', user({ client: 'ci-web' })],
    ['ci-web-session-x.y_z', user({ client: 'ci-web', session: 'x.y_z' })],
    ['ci-label-team=web', user({ client: 'ci', labels: { team: 'web' } })],
    ['ci-label-team=web-label-env=prod', user({ client: 'ci', labels: { team: 'web', env: 'prod' } })],
    ['ci-host-edge-a', user({ client: 'ci', host: 'edge-a' })],
    ['ci-label-zone=eu-west-1-host-edge-a', user({ client: 'ci', labels: { zone: 'eu-west-1' }, host: 'edge-a' })],
    [
      'team-a-host-edge-b-session-7-label-k=v',
      user({ client: 'team-a', host: 'edge-b', session: '7', labels: { k: 'v' } }),
    ],
    ['ci-label-k=v-label-k=v', user({ client: 'ci', labels: { k: 'v' } })],
  ])('%s', (name, expected) => {
    expect(parse(name)).toEqual({ ok: true, user: expected });
  });

  it.each([
    ['nobody', /no gateway client is called "nobody"/],
    ['cia', /no gateway client is called "cia"/],
    ['', /no gateway client is called ""/],
    ['ci-', /unknown part "" after the client name "ci"/],
    ['ci-sesion-1', /unknown part "sesion-1"/],
    ['ci-session-', /session ID must be/],
    ['ci-session-a-b', /session ID must be/],
    ['ci-session-1-session-2', /a session may be named once/],
    ['ci-host-Edge', /host must be/],
    ['ci-host-a-host-b', /a host may be named once/],
    ['ci-label-team', /KEY=VALUE/],
    ['ci-label-Team=web', /KEY=VALUE/],
    ['ci-label-team=', /KEY=VALUE/],
    ['ci-label-team=a-label-team=b', /asked for twice with different values/],
  ])('%s is refused', (name, reason) => {
    const r = parse(name);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(reason);
  });

  it('names a long unknown client by its first 64 characters only', () => {
    const r = parse('x'.repeat(500));
    expect(r).toEqual({ ok: false, reason: `no gateway client is called "${'x'.repeat(64)}…"` });
  });

  it.each([
    ['web', undefined],
    ['ci-runner-2', undefined],
    ['Web', /lowercase letter/],
    ['2web', /lowercase letter/],
    ['web-', /cannot end with "-"/],
    ['web-session-x', /cannot hold "-session-"/],
    ['a-host-b', /cannot hold "-host-"/],
    ['web-label', /cannot hold "-label-"/],
    ['x'.repeat(33), /1-32 characters/],
  ])('client name %s', (name, problem) => {
    const p = gatewayClientNameProblem(name);
    if (problem) expect(p).toMatch(problem);
    else expect(p).toBeUndefined();
  });

  // Values that hold a part's marker cannot be told from a part: the grammar says so, and they are left out here.
  const noMarker = (s: string) => !/(^|-)(session|label|host)(-|$)/.test(s);
  const clientName = fc
    .stringMatching(/^[a-z][a-z0-9-]{0,31}$/)
    .filter((s) => gatewayClientNameProblem(s) === undefined);
  const labelValue = fc.stringMatching(/^[A-Za-z0-9._-]{1,63}$/).filter(noMarker);
  const users = fc.record({
    client: clientName,
    session: fc.option(fc.stringMatching(/^[A-Za-z0-9_.]{1,64}$/), { nil: undefined }),
    labels: fc.dictionary(fc.stringMatching(/^[a-z][a-z0-9._-]{0,62}$/).filter(noMarker), labelValue, { maxKeys: 4 }),
    host: fc.option(fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/).filter(noMarker), { nil: undefined }),
  });

  it(
    'formats any allowed user into a name that parses back to it',
    () => {
      fc.assert(
        fc.property(users, (u) => {
          const expected: GatewayUser = {
            client: u.client,
            labels: { ...u.labels },
            ...(u.session !== undefined ? { session: u.session } : {}),
            ...(u.host !== undefined ? { host: u.host } : {}),
          };
          expect(parseGatewayUser(formatGatewayUser(expected), [u.client, 'other'])).toEqual({
            ok: true,
            user: expected,
          });
        }),
        fuzzParams(),
      );
    },
    FUZZ_TEST_TIMEOUT_MS,
  );

  it(
    'answers any string with a user among the clients or a refusal with a reason, never a throw',
    () => {
      const text = fc.oneof(
        fc.string({ maxLength: 120 }),
        fc
          .array(fc.constantFrom('ci', 'ci-web', '-', 'session', 'label', 'host', '=', 'a', 'Z', '.', '_', '7', 'é'), {
            maxLength: 24,
          })
          .map((parts) => parts.join('')),
      );
      fc.assert(
        fc.property(text, (name) => {
          const r = parse(name);
          if (r.ok) {
            expect(CLIENTS).toContain(r.user.client);
            expect(name === r.user.client || name.startsWith(`${r.user.client}-`)).toBe(true);
          } else expect(r.reason.length).toBeGreaterThan(0);
        }),
        fuzzParams(),
      );
    },
    FUZZ_TEST_TIMEOUT_MS,
  );
});
