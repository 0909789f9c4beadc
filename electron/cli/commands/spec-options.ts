/** The launch spec's command-line options: declared once for every command that builds a spec, and turned into a spec (checked by ProxySpecSchema afterwards). */
import type { Command } from 'commander';
import { CliError, EXIT } from '../io.js';
import { expiryFrom, parseLabel } from '../../../shared/fleet-meta.js';
import { PROXY_KINDS } from '../../../shared/proxy.js';

export interface SpecOptions {
  host?: string;
  machineType?: string;
  image?: string;
  port?: string;
  kind?: string;
  allow?: string[];
  auth: boolean;
  label?: string[];
  ttl?: string;
}

export function specFromOptions(name: string, opts: SpecOptions): Record<string, unknown> {
  const spec: Record<string, unknown> = { name };
  if (opts.host !== undefined) spec.host = opts.host;
  if (opts.machineType !== undefined) spec.machineType = opts.machineType;
  if (opts.image !== undefined) spec.image = opts.image;
  if (opts.port !== undefined) {
    if (!/^\d{1,5}$/.test(opts.port))
      throw new CliError(`--port: must be a number from 1 to 65535 (got ${JSON.stringify(opts.port)})`, EXIT.usage);
    spec.port = Number(opts.port);
  }
  if (opts.kind !== undefined) {
    if (!(PROXY_KINDS as readonly string[]).includes(opts.kind))
      throw new CliError(
        `--kind: must be one of ${PROXY_KINDS.join(', ')} (got ${JSON.stringify(opts.kind)})`,
        EXIT.usage,
      );
    spec.kind = opts.kind;
  }
  if (opts.allow !== undefined) spec.allow = opts.allow;
  if (!opts.auth) spec.auth = false;
  if (opts.label?.length) spec.labels = usage('--label', () => Object.fromEntries(opts.label!.map(parseLabel)));
  if (opts.ttl !== undefined) spec.expiresAt = usage('--ttl', () => expiryFrom(opts.ttl!, Date.now()));
  return spec;
}

/** `fn()`, its error turned into a usage error of `option`. */
function usage<T>(option: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw new CliError(`${option}: ${(err as Error).message}`, EXIT.usage);
  }
}

/** The options every command that builds a spec shares (render and launch). */
export function addSpecOptions(cmd: Command): Command {
  return cmd
    .option('--host <host>', 'host name from the config (default: the first host)')
    .option('--machine-type <type>', 'machine type (default: kvm.defaults.machineType)')
    .option('--image <image>', 'image (default: kvm.defaults.image)')
    .option('--kind <kind>', 'what the proxy speaks: http (tinyproxy) or socks5 (Dante) (default: http)')
    .option('--port <port>', 'proxy port (default: kvm.proxy.port for http, 1080 for socks5)')
    .option(
      '--allow <cidr...>',
      'client addresses or CIDR blocks allowed to use the proxy (default: loopback and private ranges)',
    )
    .option(
      '--no-auth',
      'turn authentication off (BasicAuth, or SOCKS5 username/password; the allow list is then the only protection)',
    )
    .option(
      '--label <key=value>',
      "a label kept in the proxy's metadata (repeatable; edit later with `proxies label`)",
      (v: string, all: string[] = []) => [...all, v],
    )
    .option(
      '--ttl <duration|date>',
      'delete the proxy after this long (90m, 8h, 2d) or at this ISO 8601 date and time (`proxies expire`, or the app)',
    );
}
