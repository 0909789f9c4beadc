/** The launch spec's command-line options: declared once for every command that builds a spec, and turned into a spec (checked by ProxySpecSchema afterwards). */
import type { Command } from 'commander';
import { CliError, EXIT } from '../io.js';

export interface SpecOptions {
  host?: string;
  machineType?: string;
  image?: string;
  port?: string;
  allow?: string[];
  auth: boolean;
}

export function specFromOptions(name: string, opts: SpecOptions): Record<string, unknown> {
  const spec: Record<string, unknown> = { name };
  if (opts.host !== undefined) spec.host = opts.host;
  if (opts.machineType !== undefined) spec.machineType = opts.machineType;
  if (opts.image !== undefined) spec.image = opts.image;
  if (opts.port !== undefined) {
    if (!/^\d{1,5}$/.test(opts.port)) throw new CliError(`--port: must be a number from 1 to 65535 (got ${JSON.stringify(opts.port)})`, EXIT.usage);
    spec.port = Number(opts.port);
  }
  if (opts.allow !== undefined) spec.allow = opts.allow;
  if (!opts.auth) spec.auth = false;
  return spec;
}

/** The options every command that builds a spec shares (render and launch). */
export function addSpecOptions(cmd: Command): Command {
  return cmd
    .option('--host <host>', 'host name from the config (default: the first host)')
    .option('--machine-type <type>', 'machine type (default: kvm.defaults.machineType)')
    .option('--image <image>', 'image (default: kvm.defaults.image)')
    .option('--port <port>', 'proxy port (default: kvm.proxy.port)')
    .option('--allow <cidr...>', 'client addresses or CIDR blocks allowed to use the proxy (default: loopback and private ranges)')
    .option('--no-auth', 'turn BasicAuth off (the allow list is then the only protection)');
}
