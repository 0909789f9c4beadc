/** `egress-desk proxies list | inspect | url | reconcile` (start, stop, delete: proxies-lifecycle.ts). */
import type { Command } from 'commander';
import type { ProxyRecord } from '../../services/provider/kvm/context.js';
import { CliError, EXIT } from '../io.js';
import type { CommandKit } from '../kit.js';
import { withProvider } from './proxies-provider.js';
import { countdown, isMine, matchesSelector, ownerText } from '../../../shared/fleet-meta.js';
import { selectorOption, selectorText } from './proxies-select.js';

function addresses(p: ProxyRecord): string {
  return p.addresses.map((a) => `${a.address} (${a.source})`).join(', ') || '-';
}

/** Columns padded to their widest cell. */
function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')).join('\n');
}

export function registerManageCommands(proxies: Command, kit: CommandKit): void {
  proxies
    .command('list')
    .description('every proxy on every host (a host that is down is reported; the others are still listed)')
    .option('-l, --selector <key=value,...>', 'only the proxies with these labels')
    .option('--mine', 'only the proxies you launched (this user on this workstation)')
    .option('--json', 'print {proxies: [...], hosts: [...], you} as JSON')
    .action(
      kit.action(async (ctx, opts: { json?: boolean; selector?: string; mine?: boolean }) =>
        withProvider(ctx, async ({ provider }) => {
          const selector = selectorOption(opts.selector);
          const all = await provider.list();
          const listing = {
            ...all,
            proxies: all.proxies.filter(
              (p) =>
                (!selector || matchesSelector(p.labels, selector)) && (!opts.mine || isMine(p.launchedBy, all.you)),
            ),
          };
          const down = listing.hosts.filter((h) => !h.ok);
          if (opts.json) ctx.io.stdout(`${JSON.stringify(listing, null, 2)}\n`);
          else {
            const now = Date.now();
            const rows = [
              ['NAME', 'HOST', 'STATE', 'PORT', 'MACHINE', 'IMAGE', 'LAUNCHED BY', 'EXPIRES', 'LABELS', 'ADDRESSES'],
              ...listing.proxies.map((p) => [
                p.name,
                p.host,
                p.replacing ? `${p.state} (replacement under way)` : p.state,
                String(p.port),
                p.machineType,
                p.image.name,
                p.launchedBy ? ownerText(p.launchedBy) : '-',
                p.expiresAt ? countdown(p.expiresAt, now) : '-',
                p.labels ? selectorText(p.labels) : '-',
                addresses(p),
              ]),
            ];
            ctx.io.stdout(listing.proxies.length ? `${table(rows)}\n` : 'no proxies\n');
            for (const h of down) ctx.io.stderr(`host ${h.host} is not reachable: ${h.error}\n`);
            for (const p of listing.proxies) if (p.addressNote) ctx.io.stderr(`proxy ${p.name}: ${p.addressNote}\n`);
            for (const p of listing.proxies)
              if (p.unknownHost)
                ctx.io.stderr(
                  `proxy ${p.name}: its metadata names host ${p.unknownHost}, which is not an entry on its hypervisor now (renamed or removed?): listed under ${p.host}\n`,
                );
            for (const h of listing.hosts)
              for (const u of h.unreadable)
                ctx.io.stderr(`${h.host}: domain ${u.domain} has metadata this version cannot read: ${u.error}\n`);
          }
          return down.length ? EXIT.failed : EXIT.ok;
        }),
      ),
    );

  proxies
    .command('inspect')
    .description("a proxy's metadata, addresses from every source, and its domain XML")
    .argument('<name>', 'proxy name')
    .option('--json', 'print the inspection as JSON')
    .action(
      kit.action(async (ctx, name: string, opts: { json?: boolean }) =>
        withProvider(ctx, async ({ provider }) => {
          const r = await provider.inspect(name);
          if (opts.json) {
            ctx.io.stdout(`${JSON.stringify(r, null, 2)}\n`);
            return EXIT.ok;
          }
          const m = r.metadata;
          ctx.io.stdout(
            [
              `name        ${m.name}`,
              `instance    ${r.proxy.id}`,
              `host        ${r.proxy.host}`,
              `state       ${r.proxy.state}`,
              `port        ${m.port}`,
              `machine     ${m.machineType}`,
              `image       ${m.image.name} (sha256 ${m.image.sha256.slice(0, 12)}…)`,
              `created     ${m.createdAt} by ${m.owner}${m.launchedBy ? ` (launched by ${ownerText(m.launchedBy)})` : ''}`,
              `labels      ${m.labels ? selectorText(m.labels) : '-'}`,
              `expires     ${m.expiresAt ? `${m.expiresAt} (${countdown(m.expiresAt, Date.now())})` : 'never'}`,
              `spec        ${m.specHash}`,
              `credentials ${r.hasCredentials ? 'stored on this workstation' : 'none stored here'}`,
              `addresses   ${addresses(r.proxy)}`,
              ...Object.entries(r.problems).map(([source, why]) => `  (${source}: ${why})`),
              '',
              r.domainXml.trimEnd(),
              '',
            ].join('\n'),
          );
          return EXIT.ok;
        }),
      ),
    );

  proxies
    .command('url')
    .description(
      "the proxy URL with its credentials, at its current address (the guest agent's, else its newest DHCP lease): what Copy URL copies",
    )
    .argument('<name>', 'proxy name')
    .action(
      kit.action(async (ctx, name: string) =>
        withProvider(ctx, async ({ provider }) => {
          const url = await provider.proxyUrl(name);
          if (url === undefined)
            throw new CliError(
              `proxy ${name} has no current address: it is not running, or neither the guest agent nor a DHCP lease knows one yet (see: egress-desk proxies inspect ${name})`,
              EXIT.failed,
            );
          ctx.io.stdout(`${url}\n`);
          return EXIT.ok;
        }),
      ),
    );

  proxies
    .command('reconcile')
    .description('find leftovers: instance volumes with no domain, proxies whose volumes are gone, stale credentials')
    .option('--fix', 'remove what was found (a broken proxy someone else launched only with --force)')
    .option('--force', 'with --fix: also remove broken proxies someone else launched')
    .option('--json', 'print the report as JSON')
    .action(
      kit.action(async (ctx, opts: { fix?: boolean; force?: boolean; json?: boolean }) =>
        withProvider(ctx, async ({ provider }) => {
          const r = await provider.reconcile({ fix: opts.fix === true, force: opts.force === true });
          if (opts.json) ctx.io.stdout(`${JSON.stringify(r, null, 2)}\n`);
          else {
            if (!r.findings.length) ctx.io.stdout('nothing to reconcile\n');
            for (const f of r.findings) {
              const state =
                f.fixed === true
                  ? ' [fixed]'
                  : f.fixed === false
                    ? ` [not fixed: ${f.error}]`
                    : f.deferred
                      ? ' [left alone for now]'
                      : '';
              ctx.io.stdout(`${f.kind}  ${f.host ?? '-'}  ${f.object}: ${f.detail}${state}\n`);
            }
            for (const u of r.unreachable) ctx.io.stderr(`host ${u.host} could not be checked: ${u.error}\n`);
          }
          const unfixed = r.findings.some((f) => f.fixed === false);
          return r.unreachable.length || unfixed ? EXIT.failed : EXIT.ok;
        }),
      ),
    );
}
