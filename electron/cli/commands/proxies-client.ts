/**
 * `egress-desk proxies client-settings`: what clients paste, for one proxy, several or a
 * label selection (shared/client-settings.ts builds each format). Credentials only with
 * --with-credentials, as `config export`'s proxy list; `proxies url` prints one URL with them.
 */
import { resolve } from 'node:path';
import { type Command, Option } from 'commander';
import {
  CLIENT_FORMATS,
  CLIENT_FORMAT_LABELS,
  type ClientFormat,
  buildClientSettings,
} from '../../../shared/client-settings.js';
import { writeFileAtomic } from '../../services/config/atomic-write.js';
import { ClientSettingsError, clientProxies } from '../../services/app/exports.js';
import type { CommandKit } from '../kit.js';
import { CliError, EXIT } from '../io.js';
import { withProvider } from './proxies-provider.js';
import { matching, selectorOption, selectorText } from './proxies-select.js';

interface ClientOptions {
  format: ClientFormat;
  selector?: string;
  withCredentials?: boolean;
  out?: string;
}

export function registerClientSettingsCommand(proxies: Command, kit: CommandKit): void {
  proxies
    .command('client-settings')
    .description(
      'client settings for proxies, ready to paste: shell exports, a curl config, a FoxyProxy import file, a PAC file, a Kubernetes Secret, JSON or URLs',
    )
    .argument('[names...]', 'proxy names (or -l)')
    .addOption(
      new Option('--format <format>', CLIENT_FORMATS.map((f) => `${f}: ${CLIENT_FORMAT_LABELS[f]}`).join('; '))
        .choices(CLIENT_FORMATS)
        .default('env'),
    )
    .option('-l, --selector <key=value,...>', 'every proxy with these labels instead of names')
    .option('--with-credentials', "include each proxy's username and password (from this workstation's credentials)")
    .option('--out <file>', 'write to this file (mode 0600) instead of standard output')
    .action(
      kit.action(async (ctx, names: string[], opts: ClientOptions) => {
        const selector = selectorOption(opts.selector);
        if (!names.length && !selector)
          throw new CliError('give proxy NAMEs, or -l key=value for every proxy with those labels', EXIT.usage);
        if (names.length && selector) throw new CliError('give proxy NAMEs or -l key=value, not both', EXIT.usage);
        return withProvider(ctx, async ({ provider, backend }) => {
          const listing = await provider.list();
          for (const h of listing.hosts.filter((x) => !x.ok))
            ctx.io.stderr(`host ${h.host} could not be listed: ${h.error ?? 'unknown error'}\n`);
          const chosen = selector ? matching(listing.proxies, selector).map((p) => p.name) : names;
          if (!chosen.length) throw new CliError(`no proxy has the labels ${selectorText(selector!)}`, EXIT.failed);
          let file: ReturnType<typeof buildClientSettings>;
          try {
            const list = await clientProxies(
              listing.proxies,
              chosen,
              opts.withCredentials ? (n) => backend.credentials.get(n) : undefined,
            );
            file = buildClientSettings(opts.format, list);
          } catch (err) {
            if (err instanceof ClientSettingsError) throw new CliError(err.message, EXIT.failed);
            throw err;
          }
          if (opts.out === undefined) ctx.io.stdout(file.text);
          else {
            const target = resolve(ctx.io.cwd, opts.out);
            await writeFileAtomic(target, file.text); // 0600: it may hold passwords
            ctx.io.stderr(`wrote ${target}\n`);
          }
          return EXIT.ok;
        });
      }),
    );
}
