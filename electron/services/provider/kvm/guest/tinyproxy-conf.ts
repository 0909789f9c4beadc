/**
 * tinyproxy's configuration for a proxy. Every value that reaches the file is checked
 * against a strict pattern first: tinyproxy's format has no escaping, so a space, quote
 * or newline in a user-supplied value could add directives. Rejecting beats escaping here.
 */
import { z } from 'zod';
import { isCidr } from '../../../../../shared/net.js';
import { ProxyCredentialsSchema } from '../../../../../shared/proxy.js';

export { isCidr } from '../../../../../shared/net.js';

export { type ProxyCredentials, ProxyCredentialsSchema } from '../../../../../shared/proxy.js';

export const TinyproxySpecSchema = z.object({
  port: z.int().min(1).max(65535),
  /** Clients allowed to use the proxy; never empty: a proxy is never open to the world by default. */
  allow: z
    .array(z.string().refine(isCidr, 'must be an IP address or CIDR block'))
    .min(1, 'at least one allowed client address or block is required'),
  credentials: ProxyCredentialsSchema.optional(),
  /** The name in the Via header; a fixed name keeps the guest's hostname out of requests. */
  viaProxyName: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,63}$/)
    .default('egress-proxy'),
});
export type TinyproxySpec = z.input<typeof TinyproxySpecSchema>;

/**
 * The last line of every tinyproxy.conf Egress Desk writes. A baked image's tinyproxy waits
 * for it before starting (bake-recipe.ts's drop-in): the file is then complete and ours.
 */
export const TINYPROXY_CONF_END = '# End of the Egress Desk configuration.';

export function buildTinyproxyConf(input: TinyproxySpec): string {
  const spec = TinyproxySpecSchema.parse(input);
  const lines = [
    '# Written by Egress Desk through cloud-init; changes are lost on the next launch.',
    'User tinyproxy',
    'Group tinyproxy',
    `Port ${spec.port}`,
    'Timeout 600',
    'DefaultErrorFile "/usr/share/tinyproxy/default.html"',
    'StatFile "/usr/share/tinyproxy/stats.html"',
    'Syslog On',
    'LogLevel Notice',
    'MaxClients 200',
    // No X-Tinyproxy header (it would carry the client's address upstream); a neutral Via name.
    'XTinyproxy No',
    `ViaProxyName "${spec.viaProxyName}"`,
    ...spec.allow.map((cidr) => `Allow ${cidr}`),
    ...(spec.credentials ? [`BasicAuth ${spec.credentials.username} ${spec.credentials.password}`] : []),
    // CONNECT only to the TLS ports, so the proxy cannot tunnel arbitrary protocols.
    'ConnectPort 443',
    'ConnectPort 563',
    TINYPROXY_CONF_END,
    '',
  ];
  return lines.join('\n');
}
