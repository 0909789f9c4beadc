/** Client settings per format: what each pastes, socks5's scheme in each, credentials only when given (never in a PAC), round trips. */
import { execFileSync } from 'node:child_process';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  CLIENT_FORMATS,
  ClientJsonSchema,
  type ClientProxy,
  FoxyProxyFileSchema,
  KubernetesSecretSchema,
  NO_PROXY,
  buildClientSettings,
  buildCurlConfig,
  buildFoxyProxy,
  buildKubernetesSecret,
  buildPacFile,
  buildShellExports,
} from '../../../shared/client-settings.js';

const creds = { username: 'egress', password: 'pw_1-x' };
const http: ClientProxy = { name: 'web-1', kind: 'http', address: '192.168.150.10', port: 3128, credentials: creds };
const socks: ClientProxy = { name: 'socks-1', kind: 'socks5', address: 'fd00::7', port: 1080, credentials: creds };
const bare = (p: ClientProxy): ClientProxy => ({ name: p.name, kind: p.kind, address: p.address, port: p.port });

describe('shell exports', () => {
  it('set both spellings of HTTP_PROXY, HTTPS_PROXY and NO_PROXY; a real sh takes them', () => {
    const text = buildShellExports([http]);
    const out = execFileSync('/bin/sh', ['-c', `${text}\nprintf '%s\\n' "$HTTP_PROXY" "$https_proxy" "$NO_PROXY"`], {
      encoding: 'utf8',
      env: {},
    });
    expect(out.split('\n')).toEqual([
      'http://egress:pw_1-x@192.168.150.10:3128',
      'http://egress:pw_1-x@192.168.150.10:3128',
      NO_PROXY,
      '',
    ]);
  });

  it('socks5: socks5:// and ALL_PROXY too; a selection has the first active and the rest commented out', () => {
    const text = buildShellExports([bare(socks), bare(http)]);
    const out = execFileSync('/bin/sh', ['-c', `${text}\nprintf '%s\\n' "$ALL_PROXY" "$HTTP_PROXY"`], {
      encoding: 'utf8',
      env: {},
    });
    expect(out).toBe('socks5://[fd00::7]:1080\nsocks5://[fd00::7]:1080\n');
    expect(text).toContain('# web-1 (http): uncomment to use this one instead');
    expect(text).toContain("# export HTTP_PROXY='http://192.168.150.10:3128'");
    expect(text).not.toContain('egress:');
  });
});

describe('curl config', () => {
  it('proxy and proxy-user for http, socks5-hostname for socks5', () => {
    expect(buildCurlConfig([http]).split('\n')).toEqual(
      expect.arrayContaining([
        'proxy = "http://192.168.150.10:3128"',
        'proxy-user = "egress:pw_1-x"',
        `noproxy = "${NO_PROXY}"`,
      ]),
    );
    const s = buildCurlConfig([bare(socks)]);
    expect(s).toContain('socks5-hostname = "[fd00::7]:1080"');
    expect(s).not.toContain('proxy-user');
  });
});

describe('FoxyProxy', () => {
  it("validates against the format's schema, one entry per proxy with its type", () => {
    const file = FoxyProxyFileSchema.parse(JSON.parse(buildFoxyProxy([http, socks])));
    expect(file.data.map((d) => [d.type, d.hostname, d.port, d.username])).toEqual([
      ['http', '192.168.150.10', '3128', 'egress'],
      ['socks5', 'fd00::7', '1080', 'egress'],
    ]);
    expect(file.data.every((d) => Object.keys(d).length === 13)).toBe(true);
    expect(FoxyProxyFileSchema.parse(JSON.parse(buildFoxyProxy([bare(http)]))).data[0]!.password).toBe('');
  });

  it('the schema refuses what FoxyProxy refuses (an extra property, a non-numeric port)', () => {
    const file = JSON.parse(buildFoxyProxy([http])) as { data: Array<Record<string, unknown>> };
    expect(FoxyProxyFileSchema.safeParse({ ...file, data: [{ ...file.data[0], extra: 1 }] }).success).toBe(false);
    expect(FoxyProxyFileSchema.safeParse({ ...file, data: [{ ...file.data[0], port: 'x' }] }).success).toBe(false);
  });
});

/** A PAC file's answer for `url`, as a browser's PAC runner computes it (plain JavaScript, no helpers needed). */
function pacAnswer(text: string, url: string): unknown {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  return runInNewContext(`${text}\nFindProxyForURL(${JSON.stringify(url)}, ${JSON.stringify(host)})`, {});
}

describe('PAC file', () => {
  it('PROXY for http, SOCKS5 for socks5, in order, "; " between them; NO_PROXY hosts go direct', () => {
    const text = buildPacFile([bare(http), bare(socks)]);
    expect(pacAnswer(text, 'https://example.com/x')).toBe('PROXY 192.168.150.10:3128; SOCKS5 [fd00::7]:1080');
    expect(pacAnswer(buildPacFile([bare(socks)]), 'http://example.com/')).toBe('SOCKS5 [fd00::7]:1080');
    for (const local of ['http://localhost:8080/', 'http://127.0.0.1/', 'http://[::1]/'])
      expect(pacAnswer(text, local)).toBe('DIRECT');
  });

  it('never holds credentials, even when given, and says why in a comment', () => {
    const text = buildClientSettings('pac', [http]).text;
    expect(text).not.toContain(creds.username);
    expect(text).not.toContain(creds.password);
    expect(text).toContain('// A PAC file cannot carry credentials');
    expect(text).toBe(buildClientSettings('pac', [bare(http)]).text);
    expect(pacAnswer(text, 'http://example.com/')).toBe('PROXY 192.168.150.10:3128');
  });
});

describe('Kubernetes Secret', () => {
  it('parses back as a Secret; one proxy gives the variables for envFrom', () => {
    const secret = KubernetesSecretSchema.parse(parse(buildKubernetesSecret([socks])));
    expect(secret.metadata.name).toBe('egress-proxy-socks-1');
    expect(secret.stringData).toMatchObject({
      HTTP_PROXY: 'socks5://egress:pw_1-x@[fd00::7]:1080',
      ALL_PROXY: 'socks5://egress:pw_1-x@[fd00::7]:1080',
      no_proxy: NO_PROXY,
    });
  });

  it('a selection: one key per proxy name', () => {
    const secret = KubernetesSecretSchema.parse(parse(buildKubernetesSecret([bare(http), bare(socks)])));
    expect(secret.metadata.name).toBe('egress-proxies');
    expect(secret.stringData).toEqual({ 'web-1': 'http://192.168.150.10:3128', 'socks-1': 'socks5://[fd00::7]:1080' });
  });
});

describe('buildClientSettings', () => {
  it('every format names its file; JSON holds credentials only when given', () => {
    for (const f of CLIENT_FORMATS) expect(buildClientSettings(f, [http]).fileName).toMatch(/^web-1\./);
    expect(buildClientSettings('pac', [http, socks])).toMatchObject({
      fileName: 'proxies.pac',
      mediaType: 'application/x-ns-proxy-autoconfig',
    });
    expect(buildClientSettings('json', [http, socks]).fileName).toBe('proxies.json');
    const json = ClientJsonSchema.parse(JSON.parse(buildClientSettings('json', [bare(http)]).text));
    expect(json.proxies[0]).toEqual({
      name: 'web-1',
      kind: 'http',
      address: '192.168.150.10',
      port: 3128,
      url: 'http://192.168.150.10:3128',
    });
    expect(buildClientSettings('urls', [http, bare(socks)]).text).toBe(
      'http://egress:pw_1-x@192.168.150.10:3128\nsocks5://[fd00::7]:1080\n',
    );
    expect(() => buildClientSettings('env', [])).toThrow(/no proxy/);
  });
});
