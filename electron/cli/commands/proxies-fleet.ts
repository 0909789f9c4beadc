/** `egress-desk proxies label NAME key=value… [--remove key]` and `proxies expire` (for cron). */
import type { Command } from 'commander';
import { LabelKeySchema, parseLabel } from '../../../shared/fleet-meta.js';
import { CliError, EXIT } from '../io.js';
import type { CommandKit } from '../kit.js';
import { withProvider } from './proxies-provider.js';
import { selectorText } from './proxies-select.js';

const collect = (v: string, all: string[] = []): string[] => [...all, v];

export function registerFleetCommands(proxies: Command, kit: CommandKit): void {
  proxies
    .command('label')
    .description('set or remove labels of a proxy, in its metadata, without restarting it')
    .argument('<name>', 'proxy name')
    .argument('[labels...]', 'key=value pairs to set (added, or replacing the value of that key)')
    .option('--remove <key>', 'a label key to remove (repeatable)', collect)
    .option('--json', 'print {name, host, labels} as JSON')
    .action(
      kit.action(async (ctx, name: string, pairs: string[], opts: { remove?: string[]; json?: boolean }) => {
        let set: Record<string, string>;
        try {
          set = Object.fromEntries(pairs.map(parseLabel));
        } catch (err) {
          throw new CliError((err as Error).message, EXIT.usage);
        }
        const remove = opts.remove ?? [];
        for (const key of remove)
          if (!LabelKeySchema.safeParse(key).success)
            throw new CliError(`--remove ${JSON.stringify(key)}: not a label key`, EXIT.usage);
        if (!pairs.length && !remove.length)
          throw new CliError('give key=value pairs to set, or --remove KEY', EXIT.usage);
        return withProvider(ctx, async ({ provider }) => {
          const r = await provider.editLabels(name, { set, remove });
          if (opts.json) ctx.io.stdout(`${JSON.stringify({ name, host: r.host, labels: r.labels }, null, 2)}\n`);
          else
            ctx.io.stdout(
              `${r.changed ? 'labels of' : 'unchanged:'} proxy ${name} on ${r.host}: ${Object.keys(r.labels).length ? selectorText(r.labels) : 'none'}\n`,
            );
          return EXIT.ok;
        });
      }),
    );

  proxies
    .command('expire')
    .description(
      'delete every proxy whose expiry (--ttl at launch) has passed, whoever launched it, saying what was deleted (for cron); proxies without an expiry are never touched',
    )
    .option('--json', 'print {deleted, failed, unreachable} as JSON')
    .action(
      kit.action(async (ctx, opts: { json?: boolean }) =>
        withProvider(ctx, async ({ provider }) => {
          const r = await provider.expire();
          if (opts.json) ctx.io.stdout(`${JSON.stringify(r, null, 2)}\n`);
          else {
            if (!r.deleted.length && !r.failed.length) ctx.io.stdout('no proxy has expired\n');
            for (const d of r.deleted)
              ctx.io.stdout(`deleted proxy ${d.name} on ${d.host}: it expired at ${d.expiresAt}\n`);
            for (const f of r.failed)
              ctx.io.stderr(`proxy ${f.name} expired at ${f.expiresAt} but could not be deleted: ${f.error}\n`);
            for (const u of r.unreachable)
              ctx.io.stderr(`host ${u.host} could not be listed: its proxies were not checked (${u.error})\n`);
          }
          return r.failed.length || r.unreachable.length ? EXIT.failed : EXIT.ok;
        }),
      ),
    );
}
