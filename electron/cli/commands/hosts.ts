/** `egress-desk hosts …`: the hypervisors of the config and how they are doing. */
import { Argument, type Command } from 'commander';
import {
  IMAGE_TRANSFERS,
  type ImageTransfer,
  describeLastTransfer,
  imageTransferOf,
  withImageTransfer,
} from '../../../shared/app-settings.js';
import { readSettings, updateSettings } from '../../services/settings/settings-file.js';
import { type HostStatus, sameHypervisorAs } from '../../../shared/hosts.js';
import { collectHostInfo, statusWithInfo } from '../../services/hosts/host-info.js';
import { HostConnections } from '../../services/hosts/host-connections.js';
import { SshConnectionPool, sshTargetOf } from '../../transport/index.js';
import { EXIT } from '../io.js';
import { loadKvmConfig } from '../load-config.js';
import type { CommandKit } from '../kit.js';
import { cliSshPool, polkitLine } from '../ssh-pool.js';
import { formatHostStatus } from './hosts-format.js';
import { formatSshSettings } from './hosts-ssh-config.js';
import { sshSettingsView } from '../../services/hosts/ssh-settings-view.js';

export function registerHostCommands(program: Command, kit: CommandKit): void {
  const hosts = program.command('hosts').description('the libvirt hosts of the config');
  hosts
    .command('status')
    .description('connect to every host and print its versions, CPU and memory, pools, networks and domain count')
    .option('--json', 'print an array of host statuses as JSON')
    .action(
      kit.action(async (ctx, opts: { json?: boolean }) => {
        const config = await loadKvmConfig(ctx);
        const sshPool = cliSshPool(ctx);
        const connections = new HostConnections({
          hosts: config.hosts,
          sshPool,
          onPolkit: (host) => ctx.debug(polkitLine(host)),
        });
        try {
          const facts = {
            status: (name: string) => connections.status(name),
            info: async (name: string) => {
              const info = await collectHostInfo(await connections.client(name));
              ctx.debug(`${name}: connected through ${connections.status(name).via}`);
              return info;
            },
          };
          const statuses: HostStatus[] = await Promise.all(
            config.hosts.map((host) => statusWithInfo(facts, host.name)),
          );
          if (opts.json) ctx.io.stdout(`${JSON.stringify(statuses, null, 2)}\n`);
          else {
            const same = sameHypervisorAs(statuses);
            ctx.io.stdout(statuses.map((s) => formatHostStatus(s, same.get(s.name))).join('\n'));
          }
          const failed = statuses.filter((s) => !s.info);
          if (failed.length && !opts.json) ctx.io.stderr(`${failed.length} of ${statuses.length} hosts failed\n`);
          return failed.length ? EXIT.failed : EXIT.ok;
        } finally {
          await connections.close();
          await sshPool.close();
        }
      }),
    );
  hosts
    .command('image-transfer')
    .argument('<name>', 'a host of the config')
    .addArgument(
      new Argument(
        '[how]',
        'fetch (the host downloads base images itself), upload (from this machine), or auto (fetch when the host can)',
      ).choices([...IMAGE_TRANSFERS]),
    )
    .description("show or set how base images reach the host (the app's settings file, not config.yaml)")
    .action(
      kit.action(async (ctx, name: string, how: ImageTransfer | undefined) => {
        const config = await loadKvmConfig(ctx);
        if (!config.hosts.some((h) => h.name === name)) {
          ctx.io.stderr(
            `no host named "${name}" in the config (hosts: ${config.hosts.map((h) => h.name).join(', ') || 'none'})\n`,
          );
          return EXIT.failed;
        }
        const settings =
          how === undefined
            ? await readSettings(ctx.dataDir)
            : await updateSettings(ctx.dataDir, (s) => withImageTransfer(s, name, how));
        ctx.io.stdout(`${name}: ${imageTransferOf(settings, name)}\n`);
        // What the last launch did is news only when asked (a change prints the choice alone).
        const last = settings.hosts[name]?.lastTransfer;
        if (how === undefined && last) ctx.io.stdout(`last image: ${describeLastTransfer(last)}\n`);
        return EXIT.ok;
      }),
    );
  hosts
    .command('ssh-config')
    .argument('<name>', 'a host of the config')
    .description(
      "the host's effective SSH settings, like ssh -G: where it connects, as whom, which keys in which order and where each came from, the jump chain, known_hosts files and every warning (nothing connects)",
    )
    .option('--json', 'print the settings as JSON')
    .action(
      kit.action(async (ctx, name: string, opts: { json?: boolean }) => {
        const config = await loadKvmConfig(ctx);
        const host = config.hosts.find((h) => h.name === name);
        if (!host) {
          ctx.io.stderr(
            `no host named "${name}" in the config (hosts: ${config.hosts.map((h) => h.name).join(', ') || 'none'})\n`,
          );
          return EXIT.failed;
        }
        if (host.address === 'local') {
          ctx.io.stderr(`${name} is this machine (address: local): no SSH involved\n`);
          return EXIT.failed;
        }
        const sshPool = new SshConnectionPool({ env: ctx.io.env });
        try {
          const settings = await sshPool.resolve(sshTargetOf(host));
          if (opts.json) ctx.io.stdout(`${JSON.stringify({ name, ...settings }, null, 2)}\n`);
          else ctx.io.stdout(formatSshSettings(sshSettingsView(name, settings, sshPool.homeDir)));
          return EXIT.ok;
        } finally {
          await sshPool.close();
        }
      }),
    );
}
