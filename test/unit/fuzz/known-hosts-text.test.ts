/**
 * Fuzzing known_hosts through `KnownHosts.parse` and its lookups: lines that do not parse
 * are skipped as OpenSSH skips them, and a lookup always answers. (ssh_config text:
 * ssh-config-text.test.ts.)
 */
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  KnownHosts,
  fingerprintSha256,
  formatKnownHostLine,
  knownHostsName,
} from '../../../electron/transport/known-hosts.js';
import { FUZZ_TEST_TIMEOUT_MS, describeThrown, fuzzParams, withinBudget } from './fuzz-params.js';

/** An SSH public key blob: its type as the first string, then bytes. */
function keyBlob(type: string, body: Uint8Array): Buffer {
  const t = Buffer.from(type, 'latin1');
  const len = Buffer.alloc(4);
  len.writeUInt32BE(t.length);
  return Buffer.concat([len, t, body]);
}

const KEY_TYPES = ['ssh-ed25519', 'ecdsa-sha2-nistp256', 'ssh-rsa', 'x'];
const HOSTS = ['edge-a', '203.0.113.10', '::1', 'EDGE-A', 'a.example'];
const PORTS = [22, 2222];

const knownKey = fc.record({
  type: fc.constantFrom(...KEY_TYPES),
  body: fc.uint8Array({ minLength: 1, maxLength: 40 }),
});
const hostField = fc.oneof(
  fc.tuple(fc.constantFrom(...HOSTS), fc.constantFrom(...PORTS)).map(([h, p]) => knownHostsName(h, p)),
  fc.constantFrom(
    '*',
    '*.example',
    '!edge-a',
    'edge-?',
    '[edge-a]:*',
    'a,b,,',
    ',',
    '|1|',
    '|1|x|y',
    '|2|a|b',
    '|1|%%%|***',
    '[',
    ']:22',
  ),
  fc
    .tuple(fc.constantFrom(...HOSTS), fc.constantFrom(...PORTS), fc.uint8Array({ minLength: 1, maxLength: 20 }))
    .map(([h, p, salt]) => {
      const s = Buffer.from(salt);
      return `|1|${s.toString('base64')}|${createHmac('sha1', s).update(knownHostsName(h, p)).digest('base64')}`;
    }),
  fc.string({ maxLength: 12 }),
);
const knownLine = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .tuple(
        fc.constantFrom('', '@revoked ', '@cert-authority ', '@bogus ', '  ', '\t'),
        hostField,
        knownKey,
        fc.constantFrom(' ', '\t', '   '),
        fc.constantFrom('', ' comment', '\r', ' a b c'),
      )
      .map(
        ([marker, hosts, k, sep, tail]) =>
          `${marker}${hosts}${sep}${k.type}${sep}${keyBlob(k.type, k.body).toString('base64')}${tail}`,
      ),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        hostField,
        fc.constantFrom(...KEY_TYPES),
        fc.oneof(fc.base64String({ maxLength: 40 }), fc.string({ maxLength: 40 })),
      )
      .map(([h, t, b]) => `${h} ${t} ${b}`),
  },
  {
    weight: 1,
    arbitrary: fc.oneof(
      fc.constantFrom('', '#', '# comment', '@revoked', 'edge-a', 'edge-a ssh-ed25519', '\r', '\u0000'),
      fc.string({ maxLength: 60 }),
    ),
  },
);

describe('fuzz: known_hosts', () => {
  it(
    'arbitrary lines: parse never throws, lookups always answer, and a key written for a host is trusted',
    () => {
      const cases = fc.record({
        lines: fc.array(knownLine, { maxLength: 12 }),
        host: fc.constantFrom(...HOSTS),
        port: fc.constantFrom(...PORTS),
        key: knownKey,
        written: fc.boolean(),
      });
      fc.assert(
        fc.property(cases, ({ lines, host, port, key, written }) => {
          const blob = keyBlob(key.type, key.body);
          // The line the app itself writes when a person trusts a key, amid the noise.
          const text = [
            ...lines,
            ...(written ? [formatKnownHostLine(host, port, key.type, blob, { hash: port === 2222 })] : []),
          ].join('\n');
          withinBudget(400, () => {
            let known: KnownHosts;
            try {
              known = KnownHosts.parse(text, 'known_hosts');
            } catch (err) {
              expect.fail(`KnownHosts.parse threw: ${describeThrown(err)}`);
            }
            for (const line of known.lines) {
              expect(line.line).toBeGreaterThanOrEqual(1);
              expect(line.key.length).toBeGreaterThan(0);
            }
            const found = known.lookup(host, port, key.type, blob);
            expect(['trusted', 'unknown', 'mismatch']).toContain(found.status);
            expect(found.status === 'unknown').toBe(found.line === undefined);
            known.keyTypesFor(host, port);
            fingerprintSha256(blob);
            if (written) {
              // Trusted unless a noise line revokes exactly this key for this host.
              const revoked = found.status === 'mismatch' && found.revoked;
              expect(revoked || found.status === 'trusted', `written key not trusted: ${JSON.stringify(found)}`).toBe(
                true,
              );
            }
          });
        }),
        fuzzParams(),
      );
    },
    FUZZ_TEST_TIMEOUT_MS,
  );
});
