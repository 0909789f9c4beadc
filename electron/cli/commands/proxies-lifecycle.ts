/** `egress-desk proxies start | stop | delete [NAME] [-l key=value]`: one proxy, or every proxy with those labels. */
import type { Command } from 'commander';
import type { KvmProvider } from '../../services/provider/kvm/provider.js';
import type { CliContext } from '../context.js';
import { CliError, EXIT } from '../io.js';
import type { CommandKit } from '../kit.js';
import { ask, isTTY } from './images-shared.js';
import { withProvider } from './proxies-provider.js';
import { checkTarget, matching, refuseOthers, selectorOption, selectorText } from './proxies-select.js';

interface TargetOptions {
  selector?: string;
  force?: boolean;
}

type Verb = 'start' | 'stop' | 'delete';

/**
 * The names to act on. With -l, the fleet is listed once and someone else's proxies are
 * refused (naming them) before anything is done; with NAME, the provider checks it.
 */
async function targets(
  ctx: CliContext,
  provider: KvmProvider,
  name: string | undefined,
  opts: TargetOptions,
  verb: Verb,
): Promise<string[]> {
  const selector = selectorOption(opts.selector);
  checkTarget(name, selector);
  if (name !== undefined) return [name];
  const listing = await provider.list();
  for (const h of listing.hosts)
    if (!h.ok) ctx.io.stderr(`host ${h.host} is not reachable: its proxies are not included (${h.error})\n`);
  const found = matching(listing.proxies, selector!);
  if (!found.length) ctx.io.stderr(`no proxy has the labels ${selectorText(selector!)}\n`);
  if (verb !== 'start') refuseOthers(found, listing.you, verb, opts.force);
  return found.map((p) => p.name);
}

/** Runs `one` for each name, reporting each; a failure does not stop the others. */
async function each(ctx: CliContext, names: string[], one: (name: string) => Promise<string>): Promise<number> {
  let failed = false;
  for (const name of names) {
    try {
      ctx.io.stdout(`${await one(name)}\n`);
    } catch (err) {
      if (names.length === 1) throw err;
      failed = true;
      ctx.io.stderr(`proxy ${name}: ${(err as Error).message}\n`);
    }
  }
  return failed ? EXIT.failed : EXIT.ok;
}

const selectorFlag = [
  '-l, --selector <key=value,...>',
  'act on every proxy with these labels instead of NAME',
] as const;

export function registerLifecycleCommands(proxies: Command, kit: CommandKit): void {
  proxies
    .command('start')
    .description('start a stopped proxy, or every proxy with the labels of -l')
    .argument('[name]', 'proxy name')
    .option(...selectorFlag)
    .action(
      kit.action(async (ctx, name: string | undefined, opts: TargetOptions) =>
        withProvider(ctx, async ({ provider }) => {
          const names = await targets(ctx, provider, name, opts, 'start');
          return each(ctx, names, async (n) =>
            (await provider.start(n)).alreadyRunning ? `proxy ${n} is already running` : `started proxy ${n}`,
          );
        }),
      ),
    );

  proxies
    .command('stop')
    .description("shut a proxy down (ACPI), forcing it off after --timeout; someone else's only with --force")
    .argument('[name]', 'proxy name')
    .option(...selectorFlag)
    .option('--timeout <seconds>', 'how long the guest gets to power off (default 60)')
    .option('--force', 'also stop proxies someone else launched')
    .action(
      kit.action(async (ctx, name: string | undefined, opts: TargetOptions & { timeout?: string }) =>
        withProvider(ctx, async ({ provider }) => {
          if (opts.timeout !== undefined && !/^\d{1,6}$/.test(opts.timeout)) {
            throw new CliError(
              `--timeout: must be a whole number of seconds (got ${JSON.stringify(opts.timeout)})`,
              EXIT.usage,
            );
          }
          const names = await targets(ctx, provider, name, opts, 'stop');
          const options = {
            ...(opts.timeout !== undefined ? { timeoutMs: Number(opts.timeout) * 1000 } : {}),
            ...(opts.force ? { force: true } : {}),
          };
          return each(ctx, names, async (n) => {
            const r = await provider.stop(n, options);
            return r.alreadyStopped
              ? `proxy ${n} is not running`
              : r.forced
                ? `proxy ${n} did not shut down in time and was forced off`
                : `stopped proxy ${n}`;
          });
        }),
      ),
    );

  proxies
    .command('delete')
    .description(
      "destroy and undefine a proxy, delete its volumes and credentials (the shared base volume stays); someone else's only with --force",
    )
    .argument('[name]', 'proxy name')
    .option(...selectorFlag)
    .option('--force', 'also delete proxies someone else launched')
    .option('--yes', 'with -l: delete every match without asking')
    .action(
      kit.action(async (ctx, name: string | undefined, opts: TargetOptions & { yes?: boolean }) =>
        withProvider(ctx, async ({ provider }) => {
          const names = await targets(ctx, provider, name, opts, 'delete');
          if (name === undefined && names.length && !opts.yes) {
            if (!isTTY(ctx, 'stdin'))
              throw new CliError(
                `-l matches ${names.length} (${names.join(', ')}): pass --yes to delete them without a terminal to ask on`,
                EXIT.failed,
              );
            const answer = await ask(ctx, `Delete ${names.length} proxies (${names.join(', ')})? [y/N] `);
            if (!/^y(es)?$/i.test(answer)) {
              ctx.io.stderr('nothing deleted\n');
              return EXIT.failed;
            }
          }
          return each(ctx, names, async (n) => {
            const r = await provider.delete(n, opts.force ? { force: true } : {});
            return `deleted proxy ${n} on ${r.host}: ${r.removed.join(', ')}`;
          });
        }),
      ),
    );
}
