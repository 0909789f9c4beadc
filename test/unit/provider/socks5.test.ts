/**
 * The socks5 kind: Dante's configuration, the user-data that installs and starts it, the
 * kind in the metadata (absent = http, an http proxy's element and spec hash unchanged),
 * the package table the test image's recipe must match, URLs and PAC entries.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { withDefaults } from '../../../shared/config.js';
import { formatProxyUrl } from '../../../shared/proxy-url.js';
import { USER_DATA_SCRIPTS, buildUserData } from '../../../electron/services/provider/kvm/guest/cloud-config.js';
import {
  DANTE_SCRIPTS,
  EXTERNAL_PLACEHOLDER,
  buildDanteConf,
} from '../../../electron/services/provider/kvm/guest/dante-conf.js';
import { PROXY_SOFTWARE, proxyPackages } from '../../../electron/services/provider/kvm/guest/proxy-software.js';
import {
  buildInstanceMetadataXml,
  parseInstanceMetadata,
} from '../../../electron/services/provider/kvm/xml/metadata.js';
import { renderProxy, resolveSpec, specHash } from '../../../electron/services/provider/kvm/render.js';
import { buildPac } from '../../../electron/services/app/exports.js';
import { sampleMetadata } from '../../support/proxy-samples.js';
import { seedView } from '../../../electron/services/app/seed-view.js';
import { MASK } from '../../../shared/proxies.js';
import { tempDir } from '../../support/temp-dir.js';

const creds = { username: 'egress', password: 'pw-1.x' };

describe('danted.conf', () => {
  it('listens on the port, passes only the allowed clients and CONNECT, and asks for a username with credentials', () => {
    const lines = buildDanteConf({
      port: 1080,
      allow: ['192.168.122.0/24', '10.0.0.7', 'fd00::/8'],
      credentials: creds,
    }).split('\n');
    expect(lines).toContain('internal: 0.0.0.0 port = 1080');
    expect(lines).toContain(`external: ${EXTERNAL_PLACEHOLDER}`);
    expect(lines).toContain('socksmethod: username');
    expect(lines.filter((l) => l === '  from: 192.168.122.0/24 to: 0.0.0.0/0')).toHaveLength(2); // client and socks rules
    expect(lines).toContain('  from: 10.0.0.7/32 to: 0.0.0.0/0');
    expect(lines).toContain('  from: fd00::/8 to: 0.0.0.0/0');
    expect(lines.filter((l) => l === '  command: connect')).toHaveLength(3);
    expect(lines.join('\n')).not.toContain(creds.password);
    // Blocks come last: Dante takes the first rule that matches.
    expect(lines.lastIndexOf('client block {')).toBeGreaterThan(lines.lastIndexOf('client pass {'));
  });

  it('without credentials the method is none; an empty allow list and bad values are refused', () => {
    expect(buildDanteConf({ port: 1080, allow: ['127.0.0.1'] })).toContain('socksmethod: none');
    expect(() => buildDanteConf({ port: 1080, allow: [] })).toThrow(/at least one/);
    expect(() => buildDanteConf({ port: 1080, allow: ['10.0.0.0/8 }'] })).toThrow();
    for (const username of ['-x', '~x', '1234', 'a b', 'x'.repeat(33)]) {
      expect(
        () => buildDanteConf({ port: 1080, allow: ['127.0.0.1'], credentials: { username, password: 'ok' } }),
        username,
      ).toThrow();
    }
  });
});

describe('socks5 user-data', () => {
  const text = buildUserData({
    hostname: 'socks-1',
    kind: 'socks5',
    proxy: { port: 1080, allow: ['192.168.0.0/16'], credentials: creds },
  });
  const doc = parse(text) as { write_files: Array<{ path: string; content: string }>; runcmd: string[][] };

  it('writes danted.conf, installs dante-server when missing, sets the interface, makes the account, then (re)starts danted and the agent', () => {
    expect(doc.write_files).toEqual([
      expect.objectContaining({
        path: '/etc/danted.conf',
        content: buildDanteConf({ port: 1080, allow: ['192.168.0.0/16'], credentials: creds }),
      }),
    ]);
    expect(doc.runcmd).toEqual([
      ['sh', '-c', USER_DATA_SCRIPTS.installDante],
      ['sh', '-c', DANTE_SCRIPTS.setExternal, 'set-external', '/etc/danted.conf'],
      ['sh', '-c', DANTE_SCRIPTS.createAccount, 'create-account', 'egress', 'pw-1.x'],
      ['systemctl', 'enable', 'danted'],
      ['systemctl', 'restart', 'danted'],
      ['sh', '-c', USER_DATA_SCRIPTS.startAgent],
    ]);
    expect(USER_DATA_SCRIPTS.installDante).toContain('command -v danted');
    expect(USER_DATA_SCRIPTS.installDante).toContain('--force-confold dante-server');
  });

  it('without credentials makes no account', () => {
    const open = parse(
      buildUserData({ hostname: 'socks-1', kind: 'socks5', proxy: { port: 1080, allow: ['10.0.0.0/8'] } }),
    ) as typeof doc;
    expect(open.runcmd.some((c) => c[3] === 'create-account')).toBe(false);
  });
});

describe('the runcmd scripts for Dante, run by a real sh with stand-ins for ip, id, getent, useradd, chpasswd', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  function sandbox(commands: Record<string, string>): {
    dir: string;
    log: () => string[];
    run: (script: string, args: string[]) => number;
  } {
    const dir = tempDir('egress-dante-');
    dirs.push(dir);
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    const log = join(dir, 'log');
    writeFileSync(log, '');
    for (const [name, body] of Object.entries(commands)) {
      writeFileSync(join(bin, name), `#!/bin/sh\necho "${name} $*" >>"${log}"\n${body}\n`);
      chmodSync(join(bin, name), 0o755);
    }
    return {
      dir,
      log: () => readFileSync(log, 'utf8').split('\n').filter(Boolean),
      run: (script, args) => {
        try {
          // Stand-ins first; sed, awk and head are the machine's own (the script's text tools).
          execFileSync('/bin/sh', ['-c', script, 'x', ...args], {
            env: { PATH: `${bin}:/usr/bin:/bin` },
            stdio: 'ignore',
          });
          return 0;
        } catch (err) {
          return (err as { status: number }).status;
        }
      },
    };
  }

  it("puts the default route's interface into the file", () => {
    const s = sandbox({
      ip: '[ "$2" = route ] && echo "default via 10.0.0.1 dev enp1s0 proto dhcp src 10.0.0.5 metric 100"; exit 0',
    });
    const conf = join(s.dir, 'danted.conf');
    writeFileSync(conf, buildDanteConf({ port: 1080, allow: ['10.0.0.0/8'] }));
    expect(s.run(DANTE_SCRIPTS.setExternal, [conf])).toBe(0);
    expect(readFileSync(conf, 'utf8')).toContain('external: enp1s0\n');
  });

  it('creates the account and sets its password on stdin, never touching an account that is not ours', () => {
    const fresh = sandbox({ id: 'exit 1', useradd: 'exit 0', chpasswd: 'cat >>"${0%/bin/*}/stdin"' });
    expect(fresh.run(DANTE_SCRIPTS.createAccount, ['egress', 'pw-1.x'])).toBe(0);
    expect(fresh.log()).toEqual([
      'id -u egress',
      'useradd --system --no-create-home --shell /usr/sbin/nologin --comment Egress Desk SOCKS5 egress',
      'chpasswd ',
    ]);
    expect(readFileSync(join(fresh.dir, 'stdin'), 'utf8')).toBe('egress:pw-1.x\n');

    const root = sandbox({
      id: 'exit 0',
      getent: 'echo "root:x:0:0:root:/root:/bin/bash"',
      useradd: 'exit 0',
      chpasswd: 'exit 0',
    });
    expect(root.run(DANTE_SCRIPTS.createAccount, ['root', 'pw'])).not.toBe(0);
    expect(root.log().some((l) => l.startsWith('chpasswd') || l.startsWith('useradd'))).toBe(false);

    const ours = sandbox({
      id: 'exit 0',
      getent: 'echo "egress:x:998:998:Egress Desk SOCKS5:/home/egress:/usr/sbin/nologin"',
      useradd: 'exit 1',
      chpasswd: 'exit 0',
    });
    expect(ours.run(DANTE_SCRIPTS.createAccount, ['egress', 'new'])).toBe(0);
    expect(ours.log().at(-1)).toBe('chpasswd ');
  });
});

describe('the kind in the metadata and the spec', () => {
  it('round-trips socks5; an element without it reads as http (kind absent) and an http element is what 0.1 wrote', () => {
    const socks = sampleMetadata({ kind: 'socks5', port: 1080 });
    const xml = buildInstanceMetadataXml(socks);
    expect(xml).toContain('<kind>socks5</kind>');
    expect(parseInstanceMetadata(xml)).toEqual({ ...socks, extra: [] });
    expect(parseInstanceMetadata(buildInstanceMetadataXml(sampleMetadata()))!.kind).toBeUndefined();
    expect(buildInstanceMetadataXml(sampleMetadata({ kind: 'http' }))).toBe(buildInstanceMetadataXml(sampleMetadata()));
  });

  it('an unknown kind is malformed, not silently http', () => {
    const xml = buildInstanceMetadataXml(sampleMetadata({ kind: 'socks5' })).replace('socks5', 'socks4');
    expect(() => parseInstanceMetadata(xml)).toThrow(/kind/);
  });

  const config = withDefaults({
    hosts: [{ name: 'local', address: 'local' }],
    machineTypes: { small: { vcpus: 1, memoryMiB: 512 } },
    images: { d: { url: 'https://x.example/d.qcow2', sha256: 'ab'.repeat(32) } },
    defaults: { machineType: 'small', image: 'd' },
  });
  const options = {
    domainType: 'qemu' as const,
    basePath: '/pool/base.qcow2',
    createdAt: new Date('2026-12-03T10:00:00Z'),
  };

  it('socks5 defaults to port 1080 and renders Dante with the kind in the metadata; http keeps its hash', () => {
    const http = resolveSpec({ name: 'w' }, config, config.hosts[0]!, () => creds);
    const explicitHttp = resolveSpec({ name: 'w', kind: 'http' }, config, config.hosts[0]!, () => creds);
    const socks = resolveSpec({ name: 'w', kind: 'socks5' }, config, config.hosts[0]!, () => creds);
    expect(socks.port).toBe(1080);
    expect(http.port).toBe(config.proxy.port);
    expect(specHash(explicitHttp)).toBe(specHash(http));
    expect(specHash({ ...socks, port: http.port })).not.toBe(specHash(http));
    const rendered = renderProxy(socks, options);
    expect(rendered.metadata.kind).toBe('socks5');
    expect(parseInstanceMetadata(rendered.domainXml)!.kind).toBe('socks5');
    expect(rendered.userData).toContain('/etc/danted.conf');
    expect(renderProxy(http, options).domainXml).not.toContain('<kind>');
  });

  it("the inspector's seed of a socks5 proxy is rebuilt from its metadata exactly, the password masked", () => {
    const socks = resolveSpec({ name: 'w', kind: 'socks5' }, config, config.hosts[0]!, () => creds);
    const view = seedView(renderProxy(socks, options).metadata, config, creds);
    expect(view?.exact).toBe(true);
    expect(view?.userData).toContain('/etc/danted.conf');
    expect(view?.userData).toContain(MASK);
    expect(view?.userData).not.toContain(creds.password);
  });
});

describe('packages per kind', () => {
  it("one table; the test image recipe installs every kind's packages and leaves them to first boot in --bare", () => {
    expect(proxyPackages()).toEqual(['tinyproxy', 'dante-server']);
    expect(proxyPackages(['socks5'])).toEqual(PROXY_SOFTWARE.socks5.packages);
    const recipe = readFileSync('test/env/guest-image.sh', 'utf8');
    const list = (name: string) =>
      new RegExp(`^${name}=\\(([^)]*)\\)`, 'm').exec(recipe)![1]!.split(/\s+/).filter(Boolean);
    for (const p of proxyPackages()) {
      expect(list('PACKAGES')).toContain(p);
      expect(list('FIRST_BOOT_PACKAGES')).toContain(p);
    }
  });
});

describe('URLs and PAC entries', () => {
  it('socks5:// with percent-encoded credentials, bracketed IPv6', () => {
    expect(formatProxyUrl('10.0.0.5', 1080, creds, 'socks5')).toBe('socks5://egress:pw-1.x@10.0.0.5:1080');
    expect(formatProxyUrl('fd00::5', 1080, undefined, 'socks5')).toBe('socks5://[fd00::5]:1080');
    expect(formatProxyUrl('10.0.0.5', 3128)).toBe('http://10.0.0.5:3128');
  });

  it('PAC: SOCKS5 for a socks5 proxy, PROXY for http', () => {
    const pac = buildPac(
      [
        { name: 'a', address: '10.0.0.5', port: 3128, kind: 'http' },
        { name: 'b', address: '10.0.0.6', port: 1080, kind: 'socks5' },
      ],
      new Date(0),
    );
    expect(pac).toContain('"PROXY 10.0.0.5:3128; SOCKS5 10.0.0.6:1080; DIRECT"');
  });
});
