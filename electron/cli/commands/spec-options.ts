/** Turns command-line options into a launch spec (checked by ProxySpecSchema afterwards). */
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
