/** `egress-desk images bake IMAGE [--host H]`: bakes an image on a host (provider/kvm/images/bake.ts), progress on stderr. */
import type { CliContext } from '../context.js';
import { CliError, EXIT } from '../io.js';
import { interruptible } from './images-shared.js';
import { progressPrinter } from './proxies-launch.js';
import { withProvider } from './proxies-provider.js';

export interface BakeCliOptions {
  host?: string;
  json?: boolean;
}

export async function bakeImage(ctx: CliContext, image: string, opts: BakeCliOptions): Promise<number> {
  return withProvider(ctx, async ({ provider, config }) => {
    if (!config.images[image]) {
      const known = Object.keys(config.images);
      throw new CliError(
        `no image named ${JSON.stringify(image)} (${known.length ? `known: ${known.join(', ')}` : 'the config has none'})`,
        EXIT.usage,
      );
    }
    const hosts = config.hosts.map((h) => h.name);
    if (opts.host !== undefined && !hosts.includes(opts.host))
      throw new CliError(
        `no host named ${JSON.stringify(opts.host)} (known: ${hosts.join(', ') || 'none'})`,
        EXIT.usage,
      );
    // Without --host, only a config of one host is unambiguous.
    if (opts.host === undefined && hosts.length !== 1)
      throw new CliError(
        `the config has ${hosts.length} hosts (${hosts.join(', ')}): say which with --host`,
        EXIT.usage,
      );
    const host = opts.host ?? hosts[0]!;
    const r = await interruptible((signal) =>
      provider.bake(image, host, { signal, ...(opts.json ? {} : { onStep: progressPrinter(ctx) }) }),
    );
    if (opts.json)
      ctx.io.stdout(
        `${JSON.stringify({ host: r.host, image: r.image, volume: r.volume.name, created: r.created, recipeHash: r.recipeHash, ms: r.ms })}\n`,
      );
    else
      ctx.io.stdout(
        `${r.volume.name}: ${r.created ? `baked on ${r.host} in ${(r.ms / 1000).toFixed(0)} s` : `already baked on ${r.host}`}\n`,
      );
    return EXIT.ok;
  });
}
