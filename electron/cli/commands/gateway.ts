/**
 * `egress-desk gateway`: one address for the whole fleet (issue 40), until Ctrl-C or
 * SIGTERM; and `egress-desk gateway clients …`, who may use it. The gateway listens on
 * 127.0.0.1 unless `--bind` says otherwise, and anywhere else only once clients exist.
 * Members are the fleet's healthy proxies (services/gateway/fleet-members.ts), from the
 * listing and health rounds the `metrics` command runs too (fleet-meters.ts); the gateway
 * itself is the app's (services/gateway/app-gateway.ts), with its settings from the flags.
 */
import { resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { CLIENT_FORMATS, CLIENT_FORMAT_LABELS, type ClientFormat } from '../../../shared/client-settings.js';
import {
  FIRST_GATEWAY_CLIENT,
  GatewayClientSettingsError,
  buildGatewayClientSettings,
  reachableAddress,
} from '../../../shared/gateway-client-settings.js';
import { GATEWAY_USER_PARTS } from '../../../shared/gateway-user.js';
import { writeFileAtomic } from '../../services/config/atomic-write.js';
import { bracketHost, isIpv4, isIpv6 } from '../../../shared/net.js';
import type { GatewayAccessEntry } from '../../../shared/gateway.js';
import { formatAccessEntry } from '../../../shared/gateway-log-line.js';
import { accessLogPath } from '../../services/gateway/access-log.js';
import { followAccessLog, recentAccessEntries } from '../../services/gateway/access-log-reader.js';
import { AppGateway } from '../../services/gateway/app-gateway.js';
import { isLoopback } from '../../services/gateway/gateway-server.js';
import { GatewayClientError, GatewayClientsStore, gatewayClientsPath } from '../../services/gateway/gateway-clients.js';
import { CliError, EXIT } from '../io.js';
import { untilStopped } from '../until-stopped.js';
import type { CommandKit } from '../kit.js';
import type { CliContext } from '../context.js';
import { openFleetMeters } from './fleet-meters.js';
import { withProvider } from './proxies-provider.js';

/** Default port: beside tinyproxy's 3128, which the fleet's proxies use. */
export const GATEWAY_PORT = 3130;
/** Default SOCKS5 port: beside the HTTP one. */
export const GATEWAY_SOCKS_PORT = 3131;

interface GatewayClientSettingsOptions {
  format: ClientFormat;
  session?: string;
  label?: string[];
  host?: string;
  socks?: boolean;
  withCredentials?: boolean;
  out?: string;
}

function parsePort(text: string | undefined, byDefault = GATEWAY_PORT, flag = '--port'): number {
  if (text === undefined) return byDefault;
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65535)
    throw new CliError(`${flag}: must be a port number from 0 to 65535 (got ${JSON.stringify(text)})`, EXIT.usage);
  return Number(text);
}

function parseBind(text: string | undefined): string {
  if (text === undefined) return '127.0.0.1';
  if (text === 'localhost' || isIpv4(text) || isIpv6(text)) return text;
  throw new CliError(
    `--bind: must be an IPv4 or IPv6 address of this machine (got ${JSON.stringify(text)})`,
    EXIT.usage,
  );
}

const clientsOf = (ctx: CliContext) => new GatewayClientsStore(gatewayClientsPath(ctx.dataDir));

/** A client's proxy URL for the gateway at `address:port`. */
const urlOf = (name: string, password: string, address: string, port: number) =>
  `http://${name}:${password}@${bracketHost(reachableAddress(address))}:${port}`;

export function registerGatewayCommand(program: Command, kit: CommandKit): void {
  const gateway = program
    .command('gateway')
    .description(
      `one proxy address for the whole fleet: each request leaves through a healthy proxy chosen from the client's user name (NAME, NAME-${GATEWAY_USER_PARTS.map((p) => `${p}-…`).join(', NAME-')}); 127.0.0.1:${GATEWAY_PORT} by default`,
    )
    .option('--port <n>', `port (default ${GATEWAY_PORT}; 0: any free one)`)
    .option('--bind <address>', 'address to listen on (default 127.0.0.1; anything else needs gateway clients)')
    .option(
      '--socks-port <n>',
      `SOCKS5 listener's port on the same address (default ${GATEWAY_SOCKS_PORT}; 0: any free one)`,
    )
    .option('--no-socks', 'no SOCKS5 listener')
    .option('--log-query', "keep plain HTTP URLs' query strings in the access log (off: they often hold secrets)")
    .action(
      kit.action(
        async (ctx, opts: { port?: string; bind?: string; logQuery?: boolean; socks: boolean; socksPort?: string }) => {
          const port = parsePort(opts.port);
          const socksPort = opts.socks ? parsePort(opts.socksPort, GATEWAY_SOCKS_PORT, '--socks-port') : undefined;
          const bind = parseBind(opts.bind);
          const clients = clientsOf(ctx);
          if ((await clients.list()).length === 0) {
            if (!isLoopback(bind))
              throw new CliError(
                `the gateway listens on ${bind} only with client credentials, and none are set: add one first (egress-desk gateway clients add NAME)`,
                EXIT.failed,
              );
            await clients.add({ name: FIRST_GATEWAY_CLIENT });
            ctx.io.stderr(`no gateway client was set: made "${FIRST_GATEWAY_CLIENT}" (${clients.file}, mode 0600)\n`);
          }
          return withProvider(ctx, async (p) => {
            const meters = await openFleetMeters(ctx, p, { statsIntervalMs: 60_000 });
            const tunnelFor = p.backend.tunnelFor;
            // The app's own gateway (one assembly: listeners, log, credentials, status), over
            // the fleet and health rounds `metrics` reads, with the settings from the flags.
            const gateway = new AppGateway({
              dataDir: ctx.dataDir,
              fleet: () => ({
                proxies: () => meters.listing().proxies,
                health: () => meters.health.snapshot(),
                credentials: (name) => p.backend.credentials.get(name),
                tunnelFor: tunnelFor ? (host) => tunnelFor(host) : undefined,
              }),
              settings: () =>
                Promise.resolve({ enabled: true, port, bind, socksPort: socksPort ?? null, logQuery: !!opts.logQuery }),
              emit: () => undefined,
              moved: (user, from, to) =>
                ctx.io.stderr(
                  `gateway: client ${user.client}'s session ${user.session ?? ''} moved from ${from} to ${to}\n`,
                ),
            });
            try {
              meters.start();
              // Members are used once health says so: the first round now, not an interval later.
              await meters.health.check();
              const status = await gateway.apply();
              if (!status.running || status.port === undefined || status.address === undefined)
                throw new CliError(
                  `${status.error ?? 'the gateway did not start'} (--port N, --socks-port N: 0 for any free one; --no-socks: none)`,
                  EXIT.failed,
                );
              for (const c of await clients.list())
                ctx.io.stdout(`${urlOf(c.name, c.password, status.address, status.port)}\n`);
              const usable = status.members.filter((m) => m.usable).length;
              ctx.io.stderr(
                `gateway on ${bracketHost(status.address)}:${status.port}${status.socksPort !== undefined ? ` (SOCKS5 on port ${status.socksPort})` : ''}: ${usable} of ${status.members.length} proxies usable now; access log ${status.logFile}; press Ctrl-C to stop\n`,
              );
              await untilStopped();
              return EXIT.ok;
            } finally {
              await gateway.close();
              meters.close();
            }
          });
        },
      ),
    );

  gateway
    .command('log')
    .description("the gateway's access log: the newest requests, then (--follow) each one as it ends")
    .option('--follow', 'keep printing requests as they end, until Ctrl-C')
    .option('--json', 'one JSON object a line, as the log keeps them')
    .option('--lines <n>', 'how many of the newest to print first (default 20)')
    .action(
      kit.action(async (ctx, opts: { follow?: boolean; json?: boolean; lines?: string }) => {
        const n = opts.lines === undefined ? 20 : Number(opts.lines);
        if (!Number.isInteger(n) || n < 0 || n > 100_000)
          throw new CliError(
            `--lines: must be a whole number from 0 to 100000 (got ${JSON.stringify(opts.lines)})`,
            EXIT.usage,
          );
        const file = accessLogPath(ctx.dataDir);
        const print = (entries: readonly GatewayAccessEntry[]) => {
          for (const e of entries) ctx.io.stdout(`${opts.json ? JSON.stringify(e) : formatAccessEntry(e)}\n`);
        };
        const recent = await recentAccessEntries(file, n);
        if (!recent.length && !opts.follow) ctx.io.stderr(`no requests in ${file} yet\n`);
        print(recent);
        if (!opts.follow) return EXIT.ok;
        const stop = followAccessLog(file, print);
        await untilStopped();
        stop();
        return EXIT.ok;
      }),
    );

  gateway
    .command('client-settings')
    .argument('<client>', 'a gateway client')
    .description(
      "client settings for the gateway, ready to paste (the same formats as proxies client-settings): its address with the client's user name, and what that name asks for",
    )
    .addOption(
      new Option('--format <format>', CLIENT_FORMATS.map((f) => `${f}: ${CLIENT_FORMAT_LABELS[f]}`).join('; '))
        .choices(CLIENT_FORMATS)
        .default('env'),
    )
    .option('--session <id>', 'sticky: the same member for this ID')
    .option('--label <key=value...>', 'only members with these labels')
    .option('--host <host>', 'only members on this host')
    .option(
      '--socks',
      `the SOCKS5 listener (port ${GATEWAY_SOCKS_PORT}) instead of HTTP (${GATEWAY_PORT}); --port N (gateway's own option) for another`,
    )
    .option('--port <n>', "the listener's port, when the gateway was started with another")
    .option('--with-credentials', "include the client's password (the gateway's own, never a member's)")
    .option('--out <file>', 'write to this file (mode 0600) instead of standard output')
    .action(
      kit.action(async (ctx, name: string, opts: GatewayClientSettingsOptions) => {
        const client = await clientsOf(ctx).get(name);
        if (!client) throw new CliError(`no gateway client is called "${name}"`, EXIT.failed);
        const labels: Record<string, string> = {};
        for (const l of opts.label ?? []) {
          const eq = l.indexOf('=');
          if (eq < 1) throw new CliError(`--label: must be key=value (got ${JSON.stringify(l)})`, EXIT.usage);
          labels[l.slice(0, eq)] = l.slice(eq + 1);
        }
        // `--port` is the gateway command's own option (commander gives it to the parent wherever it stands).
        const port = parsePort(gateway.opts<{ port?: string }>().port, opts.socks ? GATEWAY_SOCKS_PORT : GATEWAY_PORT);
        let built: ReturnType<typeof buildGatewayClientSettings>;
        try {
          built = buildGatewayClientSettings(opts.format, {
            client,
            labels,
            ...(opts.session !== undefined ? { session: opts.session } : {}),
            ...(opts.host !== undefined ? { host: opts.host } : {}),
            socks: opts.socks,
            withCredentials: opts.withCredentials,
            address: '127.0.0.1',
            port,
          });
        } catch (err) {
          if (err instanceof GatewayClientSettingsError) throw new CliError(err.message, EXIT.usage);
          throw err;
        }
        const { file, user } = built;
        if (opts.out === undefined) ctx.io.stdout(file.text);
        else {
          const target = resolve(ctx.io.cwd, opts.out);
          await writeFileAtomic(target, file.text); // 0600: it may hold the password
          ctx.io.stderr(`wrote ${target}\n`);
        }
        if (opts.format === 'pac')
          ctx.io.stderr(`user name: ${user} (a PAC file holds no credentials: the browser asks for them)\n`);
        else if (!opts.withCredentials) ctx.io.stderr(`user name: ${user} (the password: --with-credentials)\n`);
        return EXIT.ok;
      }),
    );

  const clients = gateway.command('clients').description("the gateway's clients: who may use it (kept 0600 here)");
  clients
    .command('list')
    .description('the clients, with their source allow-lists (no passwords: `url NAME` prints one)')
    .option('--json', 'print them as JSON (without passwords)')
    .action(
      kit.action(async (ctx, opts: { json?: boolean }) => {
        const all = (await clientsOf(ctx).list()).map(({ name, allow }) => ({ name, ...(allow ? { allow } : {}) }));
        if (opts.json) ctx.io.stdout(`${JSON.stringify(all, null, 2)}\n`);
        else if (!all.length) ctx.io.stderr('no gateway clients (egress-desk gateway clients add NAME)\n');
        else for (const c of all) ctx.io.stdout(`${c.name}${c.allow ? `  from ${c.allow.join(', ')}` : ''}\n`);
        return EXIT.ok;
      }),
    );
  clients
    .command('add')
    .argument('<name>', 'the client name: the first part of every user name it sends')
    .option('--allow <cidr...>', 'source addresses or CIDR blocks it may connect from (default: any)')
    .description('add a client with a new password and print its gateway URL')
    .action(
      kit.action(async (ctx, name: string, opts: { allow?: string[] }) => {
        const c = await clientsOf(ctx)
          .add({ name, ...(opts.allow ? { allow: opts.allow } : {}) })
          .catch(refusal);
        ctx.io.stdout(`${urlOf(c.name, c.password, '127.0.0.1', GATEWAY_PORT)}\n`);
        return EXIT.ok;
      }),
    );
  clients
    .command('url')
    .argument('<name>', 'a client')
    .description(`print a client's gateway URL (with its password), for the default port ${GATEWAY_PORT}`)
    .action(
      kit.action(async (ctx, name: string) => {
        const c = await clientsOf(ctx).get(name);
        if (!c) throw new CliError(`no gateway client is called "${name}"`, EXIT.failed);
        ctx.io.stdout(`${urlOf(c.name, c.password, '127.0.0.1', GATEWAY_PORT)}\n`);
        return EXIT.ok;
      }),
    );
  clients
    .command('remove')
    .argument('<name>', 'a client')
    .description('remove a client: its password is refused from the next request')
    .action(
      kit.action(async (ctx, name: string) => {
        await clientsOf(ctx).remove(name).catch(refusal);
        ctx.io.stderr(`removed the gateway client "${name}"\n`);
        return EXIT.ok;
      }),
    );
}

/** A client store refusal as the CLI's error (exit 1, its message); anything else as it is. */
function refusal(err: unknown): never {
  if (err instanceof GatewayClientError) throw new CliError(err.message, EXIT.failed);
  throw err;
}
