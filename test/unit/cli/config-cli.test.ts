import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';

import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { validateProviderConfig } from '../../../shared/config.js';
import { cliRunner } from '../../support/cli.js';
import { tempDir } from '../../support/temp-dir.js';

const canonical = new URL('../../fixtures/config/canonical.yaml', import.meta.url).pathname;
let home: string;
let work: string;
const cli = cliRunner(() => ({ home: work, data: home }));

/** Every file under a directory with its content: to prove a command changed nothing. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile())
      out[join(entry.parentPath, entry.name)] = readFileSync(join(entry.parentPath, entry.name), 'utf8');
  }
  return out;
}

function expectNoStack(text: string) {
  expect(text).not.toMatch(/^\s+at /m);
}

beforeEach(() => {
  const root = tempDir('egress-cli-');
  home = join(root, 'home');
  work = join(root, 'work');
  mkdirSync(work);
});

describe('egress-desk config', () => {
  it('validate: a valid file prints "valid" and exits 0', async () => {
    const r = await cli('config', 'validate', canonical);
    expect(r).toEqual({ code: 0, stdout: 'valid\n', stderr: '' });
  });

  it('validate: an invalid file prints one line per problem, each naming the field, and exits 1', async () => {
    writeFileSync(
      join(work, 'bad.yaml'),
      'type: kvm\ngcp: {}\nkvm:\n  hosts:\n    - { name: edge-a, address: a.example }\n    - { name: edge-a, adress: b }\n  machineTypes: { s: { vcpus: 0, memoryMiB: 512 } }\n  images: { debian-12: { url: "ftp://x/y", sha256: nope } }\n',
    );
    const before = snapshot(work);
    const r = await cli('config', 'validate', 'bad.yaml');
    expect(r.code).toBe(1);
    expect(r.stdout.trimEnd().split('\n')).toEqual([
      'gcp: type is kvm but a gcp block is set',
      'kvm.hosts[1].name: duplicate host name "edge-a" (also kvm.hosts[0])',
      'kvm.hosts[1].adress: unknown field (did you mean "address"?)',
      'kvm.hosts[1].address: required',
      'kvm.machineTypes.s.vcpus: must be at least 1 (got 0)',
      'kvm.images.debian-12.url: must be a URL with scheme https, http, file (got "ftp")',
      'kvm.images.debian-12.sha256: must be 64 hexadecimal characters',
    ]);
    expectNoStack(r.stdout + r.stderr);
    expect(snapshot(work)).toEqual(before);
  });

  it('validate --json', async () => {
    writeFileSync(
      join(work, 'bad.yaml'),
      'type: kvm\nkvm:\n  hosts: []\n  machineTypes: { s: { vcpus: 1, memoryMiB: 512 } }\n',
    );
    const r = await cli('config', 'validate', '--json', 'bad.yaml');
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual({
      valid: false,
      issues: [{ path: 'kvm.hosts', message: 'at least one host is required' }],
    });
  });

  it.each([
    ['a missing file', () => 'missing.yaml', /cannot read .*missing\.yaml: no such file/],
    [
      'a directory',
      () => (mkdirSync(join(work, 'dir.yaml')), 'dir.yaml'),
      /dir\.yaml: is a directory, not a config file/,
    ],
    [
      'malformed YAML, with line and column',
      () => (writeFileSync(join(work, 'm.yaml'), 'type: kvm\nkvm:\n  hosts: [\n'), 'm.yaml'),
      /m\.yaml: line 4, column 1: /,
    ],
    [
      'malformed JSON, with line and column',
      () => (writeFileSync(join(work, 'm.json'), '{"type": "kvm",\n "kvm": }\n'), 'm.json'),
      /m\.json: line 2, column \d+: /,
    ],
    [
      'a huge file',
      () => (writeFileSync(join(work, 'h.yaml'), Buffer.alloc(2 * 1024 * 1024, 0x61)), 'h.yaml'),
      /h\.yaml: is 2097152 bytes; config files are limited to 1024 KiB/,
    ],
  ])('validate: %s exits 2 with a clear message', async (_what, make, message) => {
    const file = make();
    const before = snapshot(work);
    const r = await cli('config', 'validate', file);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expectNoStack(r.stderr);
    expect(snapshot(work)).toEqual(before);
  });

  it('export: prints operator YAML with every default applied', async () => {
    const r = await cli('config', 'export', canonical);
    expect(r.code).toBe(0);
    const out = parse(r.stdout) as {
      kvm: {
        hosts: Array<Record<string, unknown>>;
        machineTypes: Record<string, { diskGiB: number }>;
        vendorData: string;
        proxy: { port: number };
      };
    };
    expect(validateProviderConfig(out).ok).toBe(true);
    expect(out.kvm.hosts[0]).toMatchObject({
      socketPath: '/var/run/libvirt/libvirt-sock',
      pool: 'default',
      network: 'default',
      domainType: 'auto',
    });
    expect(out.kvm.machineTypes.medium!.diskGiB).toBe(10);
    expect(r.stdout.startsWith('type: kvm\nkvm:\n  hosts:\n')).toBe(true);
  });

  it('export --format json', async () => {
    const r = await cli('config', 'export', '--format', 'json', canonical);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { type: string }).type).toBe('kvm');
  });

  it('export: without a file, the app config (here: the first-start default), and nothing is written', async () => {
    const r = await cli('config', 'export');
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/does not exist yet; using the default config/);
    expect((parse(r.stdout) as { kvm: { hosts: Array<{ name: string }> } }).kvm.hosts[0]!.name).toBe('local');
    expect(() => readdirSync(home)).toThrow();
  });

  it('export: an invalid file exits 1 with its problems', async () => {
    writeFileSync(join(work, 'bad.yaml'), 'type: kvm\nkvm: { hosts: [], machineTypes: {} }\n');
    const r = await cli('config', 'export', 'bad.yaml');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/bad\.yaml is not a valid config:\n {2}kvm\.hosts: at least one host is required/);
  });

  it('export: --format is checked', async () => {
    const r = await cli('config', 'export', '--format', 'xml', canonical);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Allowed choices are operator, json/);
  });

  it('path: EGRESS_DESK_HOME and --config', async () => {
    expect(await cli('config', 'path')).toMatchObject({ code: 0, stdout: `${join(home, 'config.yaml')}\n` });
    expect(await cli('--config', 'other.yaml', 'config', 'path')).toMatchObject({
      code: 0,
      stdout: `${join(work, 'other.yaml')}\n`,
    });
    expect(await cli('config', 'path', '--config', '/etc/x.yaml')).toMatchObject({ code: 0, stdout: '/etc/x.yaml\n' });
  });

  it('--config FILE is what validate and export use when no file is given', async () => {
    writeFileSync(join(work, 'c.yaml'), readFileSync(canonical));
    expect(await cli('--config', 'c.yaml', 'config', 'validate')).toMatchObject({ code: 0, stdout: 'valid\n' });
    const missing = await cli('--config', 'nope.yaml', 'config', 'export');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/nope\.yaml: no such file/);
  });

  it.each([[[]], [['config']], [['config', 'validate']], [['config', 'export']], [['config', 'path']]])(
    '--help works on %j',
    async (cmd) => {
      const r = await cli(...cmd, '--help');
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^Usage: egress-desk/);
    },
  );

  it('an unknown command or option is a usage error (exit 2)', async () => {
    const a = await cli('config', 'frobnicate');
    expect(a.code).toBe(2);
    expect(a.stderr).toMatch(/unknown command 'frobnicate'/);
    const b = await cli('config', 'validate', '--strict', canonical);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/unknown option '--strict'/);
  });
});
