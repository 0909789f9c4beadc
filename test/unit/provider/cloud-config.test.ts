import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildMetaData, buildUserData, buildVendorData } from '../../../electron/services/provider/kvm/cloud-config.js';
import { buildTinyproxyConf, isCidr } from '../../../electron/services/provider/kvm/tinyproxy-conf.js';

describe('tinyproxy.conf', () => {
  it('sets the port, the allow list, BasicAuth and a neutral Via name', () => {
    const conf = buildTinyproxyConf({ port: 3128, allow: ['192.168.122.0/24', '10.0.0.7'], credentials: { username: 'u1', password: 'p-2.x' } });
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

  it.each(['10.0.0.0/24\nAllow 0.0.0.0/0', '0.0.0.0/0 x', '300.1.1.1', '10.0.0.0/33', 'host.example', '', '::1/129'])('rejects allow entry %j', (cidr) => {
    expect(() => buildTinyproxyConf({ port: 1, allow: [cidr] })).toThrow();
  });

  it.each(['user name', 'a\nBasicAuth x y', 'pa"ss', '', 'x'.repeat(129)])('rejects credential %j', (value) => {
    expect(() => buildTinyproxyConf({ port: 1, allow: ['127.0.0.1'], credentials: { username: value, password: 'ok' } })).toThrow();
    expect(() => buildTinyproxyConf({ port: 1, allow: ['127.0.0.1'], credentials: { username: 'ok', password: value } })).toThrow();
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

  it('meta-data carries instance-id and local-hostname', () => {
    expect(parse(buildMetaData('ep-web-1-abcdef', 'web-1'))).toEqual({ 'instance-id': 'ep-web-1-abcdef', 'local-hostname': 'web-1' });
  });

  it('rejects hostnames that are not DNS labels and oversized documents', () => {
    expect(() => buildUserData({ hostname: 'a: b', proxy: { port: 1, allow: ['127.0.0.1'] } })).toThrow();
    expect(() => buildMetaData('x\ny', 'web')).toThrow();
    expect(() => buildVendorData('x'.repeat(300 * 1024))).toThrow(/at most/);
    expect(buildVendorData('#cloud-config\n')).toBe('#cloud-config\n');
  });

  it('user-data survives YAML metacharacters in the proxy settings it carries', () => {
    const doc = parse(buildUserData({ hostname: 'web-1', proxy: { port: 3128, allow: ['::1'], credentials: { username: 'a-b', password: '~x.y_z' } } }));
    expect(doc.write_files[0].content).toContain('BasicAuth a-b ~x.y_z');
    expect(doc.write_files[0].content).toContain('Allow ::1');
  });
});
