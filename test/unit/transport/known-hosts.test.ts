import { createHmac, randomBytes } from 'node:crypto';
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import {
  appendKnownHost,
  fingerprintSha256,
  formatKnownHostLine,
  hashHostName,
  KnownHosts,
  keyTypeOf,
  knownHostsName,
  parseKnownHosts,
} from '../../../electron/transport/known-hosts.js';
import { tempDir } from '../../support/temp-dir.js';

// Public keys and the fingerprints `ssh-keygen -lf` printed for them (OpenSSH 9.2).
const ED = 'AAAAC3NzaC1lZDI1NTE5AAAAIIoyUCL1fBrl6OxJPwdrS1l7bxH4tvjQf8kpM7pZa2M+';
const ED_FP = 'SHA256:CZS/E6lf6BziPrbEYTzN4Ij9xLyFvPpCXBIHt5KPe3I';
const HOST = 'AAAAC3NzaC1lZDI1NTE5AAAAIH5Iuhj1VN32NoMEJnQHKErHbNGcf+tSWMffr2osQ8Ws';
const HOST_FP = 'SHA256:2wXYnZ6i1RkvrbqpP0EevvwSH0FIxVBaewvq5VyUUl8';
const EC =
  'AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBHWZiQLOKSStSEd9lZ+UB216fo3Ef5P7y6veO/0ko7zbpCA60Cx17/XW0Q7gcUnhjpmKHU0foNjfkFzegXwm+sc=';
const EC_FP = 'SHA256:SsLENeTx0dZvxh+axmVMlSxpBtNSiePBlAenhuM4Ipk';
const RSA =
  'AAAAB3NzaC1yc2EAAAADAQABAAABAQCGlC9N1ZwLOjURr1hleW3su/33ajfxM2HKOjbIrUXCEloTqCWTfKZsNoszxEF9aiY9uD3tugDLUBwaqvgxi5pndvTn6beWjpthGokmxHH3Z8RP37/AWiHVyLNO6MK2FFu0Ear0kDopNRKKhnnwKgobtI74p8nB7zDRtBjlpPumSHzR1r5VVevtesZx7iiDKC0eMnu4ODKy3XXv5fFA7pu5DB8FtcNu8EeyYUv6bgfzRh1nPIUuhySKhEoIJxO/VnQ9Ty2N35Zhv9t2OS/VzQyxNsS1/pt5sKa/Ni5S96WiSspV+KW2qvIZSD7MQN6p/SAJAzdaRN1j5tNtfAZdwr/l';
const RSA_FP = 'SHA256:qpgMnaBC58jhgahjA5el2XbtKjJFvHh/Doc8jEq/vAw';
const blob = (b64: string): Buffer => Buffer.from(b64, 'base64');

describe('fingerprintSha256', () => {
  it.each([
    ['ssh-ed25519', ED, ED_FP],
    ['ssh-ed25519 (test host)', HOST, HOST_FP],
    ['ecdsa-sha2-nistp256', EC, EC_FP],
    ['ssh-rsa', RSA, RSA_FP],
  ])('prints %s exactly as ssh-keygen -lf', (_type, key, fp) => {
    expect(fingerprintSha256(blob(key))).toBe(fp);
  });

  it('names the key type inside the blob', () => {
    expect([ED, EC, RSA].map((k) => keyTypeOf(blob(k)))).toEqual(['ssh-ed25519', 'ecdsa-sha2-nistp256', 'ssh-rsa']);
    expect(keyTypeOf(Buffer.from([0, 0]))).toBe('');
  });
});

describe('parsing known_hosts', () => {
  it('reads plain, [host]:port, comma lists, markers; skips comments, blanks and corrupt lines', () => {
    const text = [
      '# a comment',
      '',
      `edge-a,203.0.113.10 ssh-ed25519 ${ED} comment words`,
      `[edge-b]:2222 ecdsa-sha2-nistp256 ${EC}`,
      `@revoked * ssh-rsa ${RSA}`,
      `@cert-authority *.example.com ssh-ed25519 ${ED}`,
      `@bogus host ssh-ed25519 ${ED}`,
      `truncated ssh-ed25519`,
      `typemismatch ssh-rsa ${ED}`,
      '   \t  ',
    ].join('\n');
    const lines = parseKnownHosts(text, '/k');
    expect(lines.map((l) => [l.line, l.marker, l.hosts, l.keyType])).toEqual([
      [3, undefined, 'edge-a,203.0.113.10', 'ssh-ed25519'],
      [4, undefined, '[edge-b]:2222', 'ecdsa-sha2-nistp256'],
      [5, 'revoked', '*', 'ssh-rsa'],
      [6, 'cert-authority', '*.example.com', 'ssh-ed25519'],
    ]);
    expect(lines[0]?.file).toBe('/k');
  });

  it('names hosts as OpenSSH looks them up', () => {
    expect(knownHostsName('Edge-A', 22)).toBe('edge-a');
    expect(knownHostsName('edge-a', 2222)).toBe('[edge-a]:2222');
    expect(knownHostsName('2001:db8::1', 2200)).toBe('[2001:db8::1]:2200');
  });
});

describe('KnownHosts.check', () => {
  const kh = KnownHosts.parse(
    [
      `edge-a,203.0.113.10 ssh-ed25519 ${ED}`,
      `[edge-b]:2222 ecdsa-sha2-nistp256 ${EC}`,
      `*.lab,!secret.lab ssh-ed25519 ${ED}`,
      `only-rsa ssh-rsa ${RSA}`,
      `@revoked * ssh-ed25519 ${HOST}`,
      `revoked-but-listed ssh-ed25519 ${HOST}`,
      `@cert-authority ca-signed ssh-ed25519 ${ED}`,
    ].join('\n'),
    '/kh',
  );

  it.each([
    ['a listed key on port 22', 'edge-a', 22, 'ssh-ed25519', ED, 'trusted'],
    ['a host name is matched case-insensitively', 'EDGE-A', 22, 'ssh-ed25519', ED, 'trusted'],
    ['another name on the same line', '203.0.113.10', 22, 'ssh-ed25519', ED, 'trusted'],
    ['a plain entry does not cover another port', 'edge-a', 2222, 'ssh-ed25519', ED, 'unknown'],
    ['[host]:port covers that port', 'edge-b', 2222, 'ecdsa-sha2-nistp256', EC, 'trusted'],
    ['[host]:port does not cover port 22', 'edge-b', 22, 'ecdsa-sha2-nistp256', EC, 'unknown'],
    ['same type, different key: changed', 'edge-a', 22, 'ssh-rsa', RSA, 'mismatch'],
    ['only another type known: changed, as OpenSSH 9 reports it', 'only-rsa', 22, 'ssh-ed25519', ED, 'mismatch'],
    ['a wildcard pattern', 'box.lab', 22, 'ssh-ed25519', ED, 'trusted'],
    ['a negated pattern excludes', 'secret.lab', 22, 'ssh-ed25519', ED, 'unknown'],
    ['a host nobody lists', 'elsewhere', 22, 'ssh-ed25519', ED, 'unknown'],
    ['a revoked key is refused even where a line lists it', 'revoked-but-listed', 22, 'ssh-ed25519', HOST, 'mismatch'],
    ['@cert-authority lines are ignored', 'ca-signed', 22, 'ssh-ed25519', ED, 'unknown'],
  ] as const)('%s', (_name, host, port, type, key, status) => {
    expect(kh.check(host, port, type, blob(key))).toBe(status);
  });

  it('says which line a changed or revoked key conflicts with', () => {
    expect(kh.lookup('edge-a', 22, 'ssh-rsa', blob(RSA))).toMatchObject({
      status: 'mismatch',
      revoked: false,
      line: { file: '/kh', line: 1 },
    });
    expect(kh.lookup('anywhere', 22, 'ssh-ed25519', blob(HOST))).toMatchObject({
      status: 'mismatch',
      revoked: true,
      line: { line: 5, marker: 'revoked' },
    });
  });

  it('lists the key types known for a host, to ask the server for those first', () => {
    expect(kh.keyTypesFor('edge-a', 22)).toEqual(['ssh-ed25519']);
    expect(kh.keyTypesFor('only-rsa', 22)).toEqual(['ssh-rsa']);
    expect(kh.keyTypesFor('nobody', 22)).toEqual([]);
  });
});

describe('hashed entries (|1|salt|HMAC-SHA1)', () => {
  it('matches a line hashed here with HMAC-SHA1', () => {
    const salt = randomBytes(20);
    const mac = createHmac('sha1', salt).update('[edge-c]:2200').digest('base64');
    const kh = KnownHosts.parse(`|1|${salt.toString('base64')}|${mac} ssh-ed25519 ${ED}\n`);
    expect(kh.check('edge-c', 2200, 'ssh-ed25519', blob(ED))).toBe('trusted');
    expect(kh.check('edge-c', 22, 'ssh-ed25519', blob(ED))).toBe('unknown');
    expect(kh.check('edge-c', 2200, 'ssh-ed25519', blob(HOST))).toBe('mismatch');
  });

  it('matches lines hashed by ssh-keygen -H', () => {
    const kh = KnownHosts.parse(
      [
        `|1|ucLT8DNObyWtFa1/HTpAagAR3Yg=|qtxjEgHlE0UMqASdUtYSP1BpI0Y= ssh-ed25519 ${ED}`,
        `|1|rABmtH6wxRCvehwW3h/VyAGb344=|Kgzqs2l4K4mZHsx+xKR9q+WObpE= ecdsa-sha2-nistp256 ${EC}`,
      ].join('\n'),
    );
    expect(kh.check('edge-a.example.com', 22, 'ssh-ed25519', blob(ED))).toBe('trusted');
    expect(kh.check('10.0.0.5', 2200, 'ecdsa-sha2-nistp256', blob(EC))).toBe('trusted');
    expect(kh.check('edge-b.example.com', 22, 'ssh-ed25519', blob(ED))).toBe('unknown');
  });

  it('hashHostName round-trips for any host name', () => {
    fc.assert(
      fc.property(fc.domain(), fc.integer({ min: 1, max: 65535 }), (host, port) => {
        const kh = KnownHosts.parse(`${hashHostName(knownHostsName(host, port))} ssh-ed25519 ${ED}`);
        return kh.check(host, port, 'ssh-ed25519', blob(ED)) === 'trusted';
      }),
      { numRuns: 50 },
    );
  });
});

describe('recording a trusted key', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('formats [host]:port off port 22 and plain host on 22', () => {
    expect(formatKnownHostLine('Edge-A', 22, 'ssh-ed25519', blob(ED))).toBe(`edge-a ssh-ed25519 ${ED}`);
    expect(formatKnownHostLine('127.0.0.1', 2222, 'ssh-ed25519', blob(HOST))).toBe(
      `[127.0.0.1]:2222 ssh-ed25519 ${HOST}`,
    );
    const salt = Buffer.alloc(20, 7);
    expect(formatKnownHostLine('h', 2222, 'ssh-ed25519', blob(ED), { hash: true, salt })).toBe(
      `|1|${salt.toString('base64')}|${createHmac('sha1', salt).update('[h]:2222').digest('base64')} ssh-ed25519 ${ED}`,
    );
  });

  it('creates ~/.ssh 0700 and known_hosts 0600, and appends one line per key', async () => {
    dir = tempDir('egress-kh-');
    const file = join(dir, '.ssh', 'known_hosts');
    await appendKnownHost(file, '127.0.0.1', 2222, 'ssh-ed25519', blob(HOST));
    await appendKnownHost(file, 'edge-a', 22, 'ssh-ed25519', blob(ED));
    expect(readFileSync(file, 'utf8')).toBe(`[127.0.0.1]:2222 ssh-ed25519 ${HOST}\nedge-a ssh-ed25519 ${ED}\n`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, '.ssh')).mode & 0o777).toBe(0o700);
    expect(
      (await KnownHosts.load([file, join(dir, 'missing')])).check('127.0.0.1', 2222, 'ssh-ed25519', blob(HOST)),
    ).toBe('trusted');
  });

  it('keeps a file without a final newline parseable', async () => {
    dir = tempDir('egress-kh-');
    const file = join(dir, 'known_hosts');
    writeFileSync(file, `edge-a ssh-ed25519 ${ED}`);
    await appendKnownHost(file, 'edge-b', 22, 'ssh-ed25519', blob(HOST));
    expect(readFileSync(file, 'utf8')).toBe(`edge-a ssh-ed25519 ${ED}\nedge-b ssh-ed25519 ${HOST}\n`);
  });

  it('refuses a key blob of another type than the one named', async () => {
    await expect(appendKnownHost('/nonexistent/known_hosts', 'h', 22, 'ssh-rsa', blob(ED))).rejects.toThrow(
      'not ssh-rsa',
    );
  });
});
