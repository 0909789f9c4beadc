/**
 * Client settings people paste: for one proxy or a selection, the same facts (name, kind,
 * address, port, credentials when asked for) written as shell `export` lines, a curl
 * config, a FoxyProxy import file, a PAC file, a Kubernetes Secret manifest and JSON for scripts.
 * Pure: the CLI (`proxies client-settings`) and the app's "Client settings" both call
 * {@link buildClientSettings}; nothing here reads a file or the network. A socks5 proxy
 * gets its scheme in each (`socks5://…`, curl's `socks5-hostname`, FoxyProxy's `socks5`).
 */
import { stringify } from 'yaml';
import { z } from 'zod';
import { bracketHost } from './net.js';
import { type ProxyCredentials, type ProxyKind, ProxyKindSchema } from './proxy.js';
import { formatProxyUrl } from './proxy-url.js';

export const CLIENT_FORMATS = ['env', 'curl', 'foxyproxy', 'pac', 'k8s-secret', 'json', 'urls'] as const;
export const ClientFormatSchema = z.enum(CLIENT_FORMATS);
export type ClientFormat = z.infer<typeof ClientFormatSchema>;

/** What each format is, for the format picker and `--help`. */
export const CLIENT_FORMAT_LABELS: Record<ClientFormat, string> = {
  env: 'Shell (export HTTP_PROXY=…)',
  curl: 'curl config (curl -K)',
  foxyproxy: 'FoxyProxy import (JSON)',
  pac: 'PAC file (proxy auto-config)',
  'k8s-secret': 'Kubernetes Secret (YAML)',
  json: 'JSON for scripts',
  urls: 'URLs, one a line',
};

/** One proxy as a client reaches it now. */
export interface ClientProxy {
  name: string;
  kind: ProxyKind;
  address: string;
  port: number;
  /** Present only when the person asked for credentials. */
  credentials?: ProxyCredentials;
}

/** One format's file, as the CLI writes it and the app's channels answer it. */
export const ClientSettingsFileSchema = z.object({ text: z.string(), fileName: z.string(), mediaType: z.string() });
export type ClientSettingsFile = z.infer<typeof ClientSettingsFileSchema>;

/** What clients reach directly, never through the proxy. */
export const NO_PROXY = 'localhost,127.0.0.1,::1';

const url = (p: ClientProxy) => formatProxyUrl(p.address, p.port, p.credentials, p.kind);
const hostPort = (p: ClientProxy) => `${bracketHost(p.address)}:${p.port}`;

/**
 * Several proxies, one setting: environment variables and a curl config hold one proxy,
 * so the first is active and the others follow commented out, each under its name, for
 * the person to swap in.
 */
function oneActive(proxies: readonly ClientProxy[], lines: (p: ClientProxy) => string[]): string {
  return proxies
    .map((p, i) =>
      [
        `# ${p.name} (${p.kind})${i ? ': uncomment to use this one instead' : ''}`,
        ...lines(p).map((l) => (i ? `# ${l}` : l)),
      ].join('\n'),
    )
    .join('\n\n')
    .concat('\n');
}

/** Single-quoted for sh (our values never hold a quote, but a pasted line must stay one word). */
const sq = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

export function buildShellExports(proxies: readonly ClientProxy[]): string {
  return oneActive(proxies, (p) => {
    const u = sq(url(p));
    // Both spellings: curl and wget read the lowercase ones only, many others the uppercase.
    const vars = ['HTTP_PROXY', 'HTTPS_PROXY', ...(p.kind === 'socks5' ? ['ALL_PROXY'] : [])];
    return [
      `export ${vars.map((v) => `${v}=${u}`).join(' ')} NO_PROXY=${sq(NO_PROXY)}`,
      `export ${vars.map((v) => `${v.toLowerCase()}=${u}`).join(' ')} no_proxy=${sq(NO_PROXY)}`,
    ];
  });
}

/** A curl config (`curl -K file`): `proxy` for http, `socks5-hostname` for socks5 (names resolved by the proxy). */
export function buildCurlConfig(proxies: readonly ClientProxy[]): string {
  return oneActive(proxies, (p) => [
    p.kind === 'socks5' ? `socks5-hostname = "${hostPort(p)}"` : `proxy = "http://${hostPort(p)}"`,
    ...(p.credentials ? [`proxy-user = "${p.credentials.username}:${p.credentials.password}"`] : []),
    `noproxy = "${NO_PROXY}"`,
  ]);
}

/**
 * FoxyProxy's import file (versions 8 and 9, Options → Import): `mode` and the `data`
 * list, each entry with the 13 properties its schema requires (src/content/schema.json).
 * Importing replaces FoxyProxy's list and mode; `disable` leaves the choice of proxy to
 * the person.
 */
export const FoxyProxyFileSchema = z.strictObject({
  mode: z.union([z.enum(['pattern', 'disable', 'direct']), z.string().regex(/^.+:\d+$/)]),
  sync: z.boolean().optional(),
  proxyDNS: z.boolean().optional(),
  passthrough: z.string().optional(),
  data: z
    .array(
      z.strictObject({
        active: z.boolean(),
        title: z.string(),
        color: z.string(),
        type: z.enum(['http', 'https', 'socks4', 'socks5', 'pac', 'direct']),
        hostname: z.string().min(1),
        port: z.string().regex(/^\d*$/),
        username: z.string(),
        password: z.string(),
        cc: z.string().regex(/^([A-Z]{2}|)$/),
        city: z.string(),
        include: z.array(
          z.strictObject({
            type: z.enum(['wildcard', 'regex']),
            title: z.string(),
            pattern: z.string(),
            active: z.boolean(),
          }),
        ),
        exclude: z.array(
          z.strictObject({
            type: z.enum(['wildcard', 'regex']),
            title: z.string(),
            pattern: z.string(),
            active: z.boolean(),
          }),
        ),
        pac: z.string(),
      }),
    )
    .min(1),
});
export type FoxyProxyFile = z.infer<typeof FoxyProxyFileSchema>;

export function buildFoxyProxy(proxies: readonly ClientProxy[]): string {
  const file: FoxyProxyFile = {
    mode: 'disable',
    sync: false,
    // Names resolved by a SOCKS5 proxy, not by the browser (no DNS leak beside the proxy).
    proxyDNS: true,
    data: proxies.map((p) => ({
      active: true,
      title: `${p.name} (egress-desk)`,
      color: p.kind === 'socks5' ? '#8a2be2' : '#2e8b57',
      type: p.kind,
      // FoxyProxy takes an IPv6 address without brackets.
      hostname: p.address,
      port: String(p.port),
      username: p.credentials?.username ?? '',
      password: p.credentials?.password ?? '',
      cc: '',
      city: '',
      include: [],
      exclude: [],
      pac: '',
    })),
  };
  return `${JSON.stringify(FoxyProxyFileSchema.parse(file), null, 2)}\n`;
}

/**
 * A proxy auto-config file (`FindProxyForURL`), for browsers and systems that take one by
 * URL or file: every proxy in the order given, `PROXY` for http and `SOCKS5` for socks5,
 * so the browser falls back to the next when one does not answer; the hosts of
 * {@link NO_PROXY} go direct. Never credentials, even when they were asked for: a PAC
 * result has no place for a user name or password (the browser asks for them when the
 * proxy answers 407), and a PAC file is often served from somewhere others can read it.
 * The file says so in a comment.
 */
export function buildPacFile(proxies: readonly ClientProxy[]): string {
  const route = proxies.map((p) => `${p.kind === 'socks5' ? 'SOCKS5' : 'PROXY'} ${hostPort(p)}`).join('; ');
  return [
    `// Proxy auto-config for ${proxies.map((p) => `${p.name} (${p.kind})`).join(', ')}, by Egress Desk.`,
    '// A PAC file cannot carry credentials: the browser asks for the user name and password',
    '// when a proxy wants them (407), or takes them from its saved passwords.',
    'function FindProxyForURL(url, host) {',
    `  if (${JSON.stringify(NO_PROXY.split(','))}.indexOf(host) >= 0) return "DIRECT";`,
    `  return ${JSON.stringify(route)};`,
    '}',
    '',
  ].join('\n');
}

/** A Secret's data key: `[-._a-zA-Z0-9]+`, at most 253 characters. */
const SECRET_KEY = /^[-._a-zA-Z0-9]{1,253}$/;

/** The subset of a Kubernetes Secret manifest we write (and the round-trip test reads back). */
export const KubernetesSecretSchema = z.strictObject({
  apiVersion: z.literal('v1'),
  kind: z.literal('Secret'),
  metadata: z.strictObject({
    name: z
      .string()
      .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/)
      .max(253),
    labels: z.record(z.string(), z.string()).optional(),
  }),
  type: z.literal('Opaque'),
  stringData: z.record(z.string().regex(SECRET_KEY), z.string()),
});
export type KubernetesSecret = z.infer<typeof KubernetesSecretSchema>;

/**
 * A Secret holding the URLs for workloads. One proxy: `HTTP_PROXY`, `HTTPS_PROXY`,
 * `NO_PROXY` (and `ALL_PROXY` for socks5) in both spellings, ready for `envFrom`. A selection: one
 * key per proxy (its name), the URL as value, for a workload to pick from.
 */
export function buildKubernetesSecret(
  proxies: readonly ClientProxy[],
  name = proxies.length === 1 ? `egress-proxy-${proxies[0]!.name}` : 'egress-proxies',
): string {
  let stringData: Record<string, string>;
  if (proxies.length === 1) {
    const p = proxies[0]!;
    const u = url(p);
    const vars = ['HTTP_PROXY', 'HTTPS_PROXY', ...(p.kind === 'socks5' ? ['ALL_PROXY'] : [])];
    stringData = Object.fromEntries([
      ...vars.flatMap((v) => [
        [v, u],
        [v.toLowerCase(), u],
      ]),
      ['NO_PROXY', NO_PROXY],
      ['no_proxy', NO_PROXY],
    ]);
  } else {
    stringData = Object.fromEntries(proxies.map((p) => [p.name, url(p)]));
  }
  const secret = KubernetesSecretSchema.parse({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, labels: { 'app.kubernetes.io/managed-by': 'egress-desk' } },
    type: 'Opaque',
    stringData,
  });
  return stringify(secret, { lineWidth: 0 });
}

export const ClientJsonSchema = z.object({
  proxies: z.array(
    z.object({
      name: z.string(),
      kind: ProxyKindSchema,
      address: z.string(),
      port: z.number(),
      url: z.string(),
      username: z.string().optional(),
      password: z.string().optional(),
    }),
  ),
});

export function buildClientJson(proxies: readonly ClientProxy[]): string {
  const doc = {
    proxies: proxies.map((p) => ({
      name: p.name,
      kind: p.kind,
      address: p.address,
      port: p.port,
      url: url(p),
      ...(p.credentials ? { username: p.credentials.username, password: p.credentials.password } : {}),
    })),
  };
  return `${JSON.stringify(ClientJsonSchema.parse(doc), null, 2)}\n`;
}

/**
 * The file of one format for these proxies (at least one). `fileName` names the single
 * proxy, or says "proxies" for a selection.
 */
export function buildClientSettings(format: ClientFormat, proxies: readonly ClientProxy[]): ClientSettingsFile {
  if (!proxies.length)
    throw new Error('no proxy to write client settings for: none of those is running with an address');
  const stem = proxies.length === 1 ? proxies[0]!.name : 'proxies';
  switch (format) {
    case 'env':
      return { text: buildShellExports(proxies), fileName: `${stem}.env.sh`, mediaType: 'text/x-shellscript' };
    case 'curl':
      return { text: buildCurlConfig(proxies), fileName: `${stem}.curlrc`, mediaType: 'text/plain' };
    case 'foxyproxy':
      return { text: buildFoxyProxy(proxies), fileName: `${stem}.foxyproxy.json`, mediaType: 'application/json' };
    case 'pac':
      return { text: buildPacFile(proxies), fileName: `${stem}.pac`, mediaType: 'application/x-ns-proxy-autoconfig' };
    case 'k8s-secret':
      return { text: buildKubernetesSecret(proxies), fileName: `${stem}.secret.yaml`, mediaType: 'application/yaml' };
    case 'json':
      return { text: buildClientJson(proxies), fileName: `${stem}.json`, mediaType: 'application/json' };
    case 'urls':
      return { text: proxies.map((p) => `${url(p)}\n`).join(''), fileName: `${stem}.txt`, mediaType: 'text/plain' };
  }
}
