/**
 * `egress-desk proxies replace NAME [--host H]`, or `-l key=value` for every proxy with
 * those labels, one at a time: each replaced by a fresh one of the same name, spec, labels
 * and credentials, ready before the old one is deleted (provider/kvm/ops/replace.ts). A failure
 * leaves that proxy as it was and stops the run: the next ones are not touched.
 */
import type { Command } from 'commander';
import type { ReplaceEvent } from '../../services/provider/kvm/ops/replace.js';
import type { CliContext } from '../context.js';
import { CliError, EXIT } from '../io.js';
import type { CommandKit } from '../kit.js';
import { withProvider } from './proxies-provider.js';
import { checkTarget, matching, refuseOthers, selectorOption, selectorText } from './proxies-select.js';
import { ProxySpecSchema } from '../../../shared/proxy.js';

interface ReplaceCliOptions {
  host?: string;
  selector?: string;
  force?: boolean;
  allow?: string[];
  timeout?: string;
  json?: boolean;
}

function printer(ctx: CliContext, name: string): (e: ReplaceEvent) => void {
  return (e) => {
    if (e.phase === 'start') ctx.io.stderr(`${name}: ${e.step}…\n`);
    else if (e.phase === 'done' && e.message) ctx.io.stderr(`  ${e.step} done: ${e.message}\n`);
  };
}

export function registerReplaceCommand(proxies: Command, kit: CommandKit): void {
  proxies
    .command('replace')
    .description(
      'replace a proxy by a fresh one with the same name, spec, labels and credentials (a new exit address), ready before the old one is deleted; with -l, each match in turn',
    )
    .argument('[name]', 'proxy name')
    .option('--host <host>', 'launch the new one on this host (default: where the old one is)')
    .option('-l, --selector <key=value,...>', 'replace every proxy with these labels, one at a time, instead of NAME')
    .option(
      '--allow <cidr...>',
      'the allow list the proxy was launched with, for a proxy whose metadata does not record it (launched with its own list before 0.2)',
    )
    .option(
      '--timeout <seconds>',
      'how long the new one gets to become ready (default 600); not ready = removed, the old one kept',
    )
    .option('--force', 'also replace proxies someone else launched')
    .option('--json', 'print the results as JSON (the URL, with credentials, only in --json and on stdout)')
    .action(
      kit.action(async (ctx, name: string | undefined, opts: ReplaceCliOptions) => {
        const selector = selectorOption(opts.selector);
        checkTarget(name, selector);
        if (opts.timeout !== undefined && !/^\d{1,6}$/.test(opts.timeout))
          throw new CliError(
            `--timeout: must be a whole number of seconds (got ${JSON.stringify(opts.timeout)})`,
            EXIT.usage,
          );
        const allowed = ProxySpecSchema.shape.allow.safeParse(opts.allow);
        if (!allowed.success)
          throw new CliError(`--allow: ${allowed.error.issues.map((i) => i.message).join('; ')}`, EXIT.usage);
        const allow = allowed.data;
        const controller = new AbortController();
        const onSigint = (): void =>
          controller.abort(new Error('interrupted (Ctrl-C): the new one is removed, the old one kept'));
        process.once('SIGINT', onSigint);
        try {
          return await withProvider(ctx, async ({ provider }) => {
            let names = [name!];
            if (selector) {
              const listing = await provider.list();
              for (const h of listing.hosts)
                if (!h.ok)
                  ctx.io.stderr(`host ${h.host} is not reachable: its proxies are not included (${h.error})\n`);
              const found = matching(
                listing.proxies.filter((p) => !p.replacing),
                selector,
              );
              if (!found.length) ctx.io.stderr(`no proxy has the labels ${selectorText(selector)}\n`);
              refuseOthers(found, listing.you, 'replace', opts.force);
              names = found.map((p) => p.name);
            }
            const results: object[] = [];
            for (const [i, n] of names.entries()) {
              try {
                const r = await provider.replace(n, {
                  ...(opts.host !== undefined ? { host: opts.host } : {}),
                  ...(opts.force ? { force: true } : {}),
                  ...(allow ? { allow } : {}),
                  ...(opts.timeout !== undefined ? { timeoutMs: Number(opts.timeout) * 1000 } : {}),
                  signal: controller.signal,
                  ...(opts.json ? {} : { onStep: printer(ctx, n) }),
                });
                results.push({
                  name: n,
                  host: r.proxy.host,
                  domain: r.proxy.id,
                  replaced: r.old,
                  ...(r.address ? { address: r.address } : {}),
                  ...(r.url ? { url: r.url } : {}),
                });
                if (!opts.json) {
                  ctx.io.stderr(
                    `replaced proxy ${n}: now ${r.proxy.id} on ${r.proxy.host}${r.address ? ` at ${r.address}` : ''} (was ${r.old.domain} on ${r.old.host})\n`,
                  );
                  if (r.url) ctx.io.stdout(`${r.url}\n`);
                }
              } catch (err) {
                if (names.length === 1) throw err;
                const rest = names.slice(i + 1);
                ctx.io.stderr(
                  `proxy ${n}: not replaced, it is as it was: ${(err as Error).message}\n${rest.length ? `not attempted: ${rest.join(', ')}\n` : ''}`,
                );
                if (opts.json) ctx.io.stdout(`${JSON.stringify(results, null, 2)}\n`);
                return EXIT.failed;
              }
            }
            if (opts.json) ctx.io.stdout(`${JSON.stringify(results, null, 2)}\n`);
            return EXIT.ok;
          });
        } finally {
          process.removeListener('SIGINT', onSigint);
        }
      }),
    );
}
