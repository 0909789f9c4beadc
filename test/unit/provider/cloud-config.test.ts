import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  USER_DATA_SCRIPTS,
  buildMetaData,
  buildUserData,
  buildVendorData,
} from '../../../electron/services/provider/kvm/guest/cloud-config.js';
import { DEFAULT_VENDOR_DATA } from '../../../shared/vendor-data.js';
import { buildTinyproxyConf, isCidr } from '../../../electron/services/provider/kvm/guest/tinyproxy-conf.js';
import { tempDir } from '../../support/temp-dir.js';

describe('tinyproxy.conf', () => {
  it('sets the port, the allow list, BasicAuth and a neutral Via name', () => {
    const conf = buildTinyproxyConf({
      port: 3128,
      allow: ['192.168.122.0/24', '10.0.0.7'],
      credentials: { username: 'u1', password: 'p-2.x' },
    });
    const lines = conf.split('\n');
    expect(lines).toContain('Port 3128');
    expect(lines).toContain('Allow 192.168.122.0/24');
    expect(lines).toContain('Allow 10.0.0.7');
    expect(lines).toContain('BasicAuth u1 p-2.x');
    expect(lines).toContain('ViaProxyName "egress-proxy"');
    expect(lines).toContain('XTinyproxy No');
    expect(lines.some((l) => l.startsWith('Anonymous'))).toBe(false);
  });

  it('omits BasicAuth without credentials and never allows the world by default', () => {
    expect(buildTinyproxyConf({ port: 8888, allow: ['127.0.0.1'] })).not.toContain('BasicAuth');
    expect(() => buildTinyproxyConf({ port: 8888, allow: [] })).toThrow(/at least one/);
  });

  it.each(['10.0.0.0/24\nAllow 0.0.0.0/0', '0.0.0.0/0 x', '300.1.1.1', '10.0.0.0/33', 'host.example', '', '::1/129'])(
    'rejects allow entry %j',
    (cidr) => {
      expect(() => buildTinyproxyConf({ port: 1, allow: [cidr] })).toThrow();
    },
  );

  it.each(['user name', 'a\nBasicAuth x y', 'pa"ss', '', 'x'.repeat(129)])('rejects credential %j', (value) => {
    expect(() =>
      buildTinyproxyConf({ port: 1, allow: ['127.0.0.1'], credentials: { username: value, password: 'ok' } }),
    ).toThrow();
    expect(() =>
      buildTinyproxyConf({ port: 1, allow: ['127.0.0.1'], credentials: { username: 'ok', password: value } }),
    ).toThrow();
  });

  it('accepts IPv6 blocks', () => {
    expect(isCidr('fd00::/8')).toBe(true);
    expect(isCidr('2001:db8::1')).toBe(true);
    expect(isCidr('1:2:3:4:5:6:7:8:9')).toBe(false);
  });
});

describe('cloud-config', () => {
  it('user-data is #cloud-config that writes tinyproxy.conf and starts the service', () => {
    const text = buildUserData({ hostname: 'web-1', proxy: { port: 3128, allow: ['192.168.122.0/24'] } });
    expect(text.startsWith('#cloud-config\n')).toBe(true);
    const doc = parse(text);
    expect(doc.hostname).toBe('web-1');
    expect(doc.write_files[0].path).toBe('/etc/tinyproxy/tinyproxy.conf');
    expect(doc.write_files[0].content).toBe(buildTinyproxyConf({ port: 3128, allow: ['192.168.122.0/24'] }));
    expect(doc.runcmd).toContainEqual(['systemctl', 'restart', 'tinyproxy']);
  });

  it("on a baked base, tinyproxy (started after write_files by the bake's drop-in) is only started when not running; Dante and a plain base are restarted", () => {
    const spec = { hostname: 'web-1', proxy: { port: 3128, allow: ['192.168.122.0/24'] } };
    const baked = parse(buildUserData({ ...spec, baked: true }));
    expect(baked.runcmd).toContainEqual([
      'sh',
      '-c',
      'systemctl is-active --quiet tinyproxy || systemctl restart tinyproxy',
    ]);
    expect(baked.runcmd).not.toContainEqual(['systemctl', 'restart', 'tinyproxy']);
    expect(parse(buildUserData(spec)).runcmd).toContainEqual(['systemctl', 'restart', 'tinyproxy']);
    expect(parse(buildUserData({ ...spec, kind: 'socks5', baked: true })).runcmd).toContainEqual([
      'systemctl',
      'restart',
      'danted',
    ]);
  });

  it('meta-data carries instance-id and local-hostname', () => {
    expect(parse(buildMetaData('ep-web-1-abcdef', 'web-1'))).toEqual({
      'instance-id': 'ep-web-1-abcdef',
      'local-hostname': 'web-1',
    });
  });

  it('rejects hostnames that are not DNS labels and oversized documents', () => {
    expect(() => buildUserData({ hostname: 'a: b', proxy: { port: 1, allow: ['127.0.0.1'] } })).toThrow();
    expect(() => buildMetaData('x\ny', 'web')).toThrow();
    expect(() => buildVendorData('x'.repeat(300 * 1024))).toThrow(/at most/);
    expect(buildVendorData('#cloud-config\n')).toBe('#cloud-config\n');
  });

  it('user-data survives YAML metacharacters in the proxy settings it carries', () => {
    const doc = parse(
      buildUserData({
        hostname: 'web-1',
        proxy: { port: 3128, allow: ['::1'], credentials: { username: 'a-b', password: '~x.y_z' } },
      }),
    );
    expect(doc.write_files[0].content).toContain('BasicAuth a-b ~x.y_z');
    expect(doc.write_files[0].content).toContain('Allow ::1');
  });
});

type Cfg = Record<string, unknown>;
const isMap = (v: unknown): v is Cfg => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * cloud-init 22.4's final merge of the instance configs (helpers.ConfigMerger, then
 * util.mergemanydict with the default mergers `list()+dict()+str()`): user-data first,
 * vendor-data merged into it with dict `no_replace` (nested maps recursively), a list or
 * string that user-data has is kept as it is. `merge_how` cannot change this: the part
 * handler pops it before writing cloud_config.txt / vendor_cloud_config.txt.
 */
function cloudInitMerge(user: Cfg, vendor: Cfg): Cfg {
  const out: Cfg = { ...user };
  for (const [k, v] of Object.entries(vendor)) {
    const have = out[k];
    if (!(k in out)) out[k] = v;
    else if (isMap(have) && isMap(v)) out[k] = cloudInitMerge(have, v);
  }
  return out;
}

describe("the seed under cloud-init's vendor-data merge", () => {
  const user = parse(buildUserData({ hostname: 'web-1', proxy: { port: 3128, allow: ['192.168.122.0/24'] } })) as Cfg;
  const vendor = parse(DEFAULT_VENDOR_DATA) as Cfg;

  it("installs the default vendor-data's agent and starts it from user-data's runcmd", () => {
    const merged = cloudInitMerge(user, vendor);
    expect(merged.packages).toEqual(['qemu-guest-agent']);
    expect(merged.runcmd).toContainEqual(['sh', '-c', USER_DATA_SCRIPTS.startAgent]);
    // The agent is started after tinyproxy is handled, which cloud-init runs after `packages`.
    const runcmd = merged.runcmd as unknown[][];
    expect(runcmd.findIndex((c) => c[2] === USER_DATA_SCRIPTS.startAgent)).toBe(runcmd.length - 1);
  });

  it('the default vendor-data has no key that user-data would shadow', () => {
    for (const key of Object.keys(vendor)) {
      if (key in user)
        expect(isMap(user[key]) && isMap(vendor[key]), `vendor-data key ${key} is replaced by user-data's`).toBe(true);
    }
  });

  it('a vendor runcmd never survives it (why the agent start lives in user-data)', () => {
    const merged = cloudInitMerge(user, {
      runcmd: [['systemctl', 'enable', '--now', 'qemu-guest-agent']],
      apt: { sources_list: 'deb x ./' },
    });
    expect(merged.runcmd).toEqual(user.runcmd);
    expect(merged.apt).toEqual({ sources_list: 'deb x ./' });
  });
});

/**
 * The runcmd scripts run by a real `sh` against stand-in commands that log their arguments
 * (shell builtins only in the stand-ins: PATH holds nothing else).
 */
describe("user-data's runcmd scripts", () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  function run(script: string, o: { commands: Record<string, string>; port?: boolean }): string[] {
    const dir = tempDir('egress-runcmd-');
    dirs.push(dir);
    const bin = join(dir, 'bin');
    const ports = join(dir, 'virtio-ports');
    mkdirSync(bin);
    mkdirSync(ports);
    if (o.port) writeFileSync(join(ports, 'org.qemu.guest_agent.0'), '');
    const log = join(dir, 'log');
    writeFileSync(log, '');
    for (const [name, body] of Object.entries(o.commands)) {
      writeFileSync(join(bin, name), `#!/bin/sh\necho "${name} $*" >>"${log}"\n${body}\n`);
      chmodSync(join(bin, name), 0o755);
    }
    const text = script.replaceAll('/dev/virtio-ports/', `${ports}/`);
    // PATH holds the stand-ins only: a tinyproxy or qemu-ga on this machine must not count.
    execFileSync('/bin/sh', ['-c', text], { env: { PATH: bin }, stdio: 'ignore' });
    return readFileSync(log, 'utf8').split('\n').filter(Boolean);
  }

  const agentInstalled = { 'qemu-ga': 'exit 0' };

  it('starts an installed, stopped agent', () => {
    const calls = run(USER_DATA_SCRIPTS.startAgent, {
      commands: { ...agentInstalled, systemctl: '[ "$1" = is-active ] && exit 3; exit 0' },
      port: true,
    });
    expect(calls).toEqual(['systemctl is-active --quiet qemu-guest-agent', 'systemctl start qemu-guest-agent']);
  });

  it('leaves a running agent alone, and does nothing without the agent or without its port', () => {
    expect(
      run(USER_DATA_SCRIPTS.startAgent, { commands: { ...agentInstalled, systemctl: 'exit 0' }, port: true }),
    ).toEqual(['systemctl is-active --quiet qemu-guest-agent']);
    expect(run(USER_DATA_SCRIPTS.startAgent, { commands: { systemctl: 'exit 3' }, port: true })).toEqual([]);
    expect(
      run(USER_DATA_SCRIPTS.startAgent, { commands: { ...agentInstalled, systemctl: 'exit 3' }, port: false }),
    ).toEqual(['systemctl is-active --quiet qemu-guest-agent']);
  });

  it('installs tinyproxy only when missing, refreshing the lists only when the install fails', () => {
    const install = ['apt-get install -y -o Dpkg::Options::=--force-confold tinyproxy'];
    expect(run(USER_DATA_SCRIPTS.installTinyproxy, { commands: { tinyproxy: 'exit 0', 'apt-get': 'exit 0' } })).toEqual(
      [],
    );
    expect(run(USER_DATA_SCRIPTS.installTinyproxy, { commands: { 'apt-get': 'exit 0' } })).toEqual(install);
    // The install succeeds only once `apt-get update` has run (a flag beside the stand-in).
    const aptGet = 'flag="${0%/*}/updated"; [ "$1" = update ] && { : >"$flag"; exit 0; }; [ -e "$flag" ]';
    expect(run(USER_DATA_SCRIPTS.installTinyproxy, { commands: { 'apt-get': aptGet } })).toEqual([
      ...install,
      'apt-get update',
      ...install,
    ]);
  });
});
