/** `egress-desk proxies launch NAME`: the seven steps, progress on stderr, the proxy URL on stdout. */
import { type Command, Option } from 'commander';
import { ProxySpecSchema } from '../../../shared/proxy.js';
import { IMAGE_TRANSFERS, type ImageTransfer } from '../../services/provider/kvm/host-fetch-plan.js';
import type { LaunchEvent } from '../../services/provider/kvm/launch.js';
import { formatBytes } from '../../../shared/bytes.js';
import type { CliContext } from '../context.js';
import { CliError, EXIT } from '../io.js';
import type { CommandKit } from '../kit.js';
import { withProvider } from './proxies-provider.js';
import { type SpecOptions, addSpecOptions, specFromOptions } from './spec-options.js';

interface LaunchCliOptions extends SpecOptions {
  wait?: boolean;
  timeout?: string;
  rollbackOnTimeout?: boolean;
  json?: boolean;
  imageTransfer?: ImageTransfer;
}

export function registerLaunchCommand(proxies: Command, kit: CommandKit): void {
  const cmd = proxies.command('launch').description('launch a proxy: validate, place, image, upload, volumes, seed, define, boot (and with --wait: address, proxy)').argument('<name>', 'proxy name (a lowercase DNS label)');
  addSpecOptions(cmd)
    .option('--wait', 'wait until the proxy port accepts connections, then print the proxy URL')
    .option('--timeout <seconds>', 'with --wait: give up after this long (default 600)')
    .option('--rollback-on-timeout', 'with --wait: remove the proxy when it is not ready in time (default: leave it for inspection)')
    .option('--json', 'print the result as JSON')
    .addOption(
      new Option('--image-transfer <how>', 'how the base image reaches an SSH host: fetch (the host downloads it), upload (from this machine), or auto (the default: fetch when the host can)')
        .choices([...IMAGE_TRANSFERS]),
    )
    .action(kit.action(async (ctx, name: string, opts: LaunchCliOptions) => launchProxy(ctx, name, opts)));
}

function progressPrinter(ctx: CliContext): (e: LaunchEvent) => void {
  const tty = ctx.io.isTTY?.stderr ?? Boolean(process.stderr.isTTY);
  let lastLine = 0;
  return (e) => {
    if (e.phase === 'start') ctx.io.stderr(`${e.step}…\n`);
    else if (e.phase === 'done') ctx.io.stderr(`  ${e.step} done${e.message ? `: ${e.message}` : ''}\n`);
    else if (tty && e.done !== undefined && Date.now() - lastLine > 200) {
      lastLine = Date.now();
      ctx.io.stderr(`  ${e.step}: ${formatBytes(e.done)}${e.total ? ` of ${formatBytes(e.total)}` : ''}\r`);
    }
  };
}

async function launchProxy(ctx: CliContext, name: string, opts: LaunchCliOptions): Promise<number> {
  const spec = ProxySpecSchema.parse(specFromOptions(name, opts));
  let timeoutMs: number | undefined;
  if (opts.timeout !== undefined) {
    if (!/^\d+$/.test(opts.timeout) || Number(opts.timeout) < 1) throw new CliError(`--timeout: must be a whole number of seconds (got ${JSON.stringify(opts.timeout)})`, EXIT.usage);
    timeoutMs = Number(opts.timeout) * 1000;
  }
  const controller = new AbortController();
  // Ctrl-C rolls the launch back instead of leaving half a proxy behind.
  const onSigint = (): void => controller.abort(new Error('interrupted (Ctrl-C)'));
  process.once('SIGINT', onSigint);
  try {
    return await withProvider(ctx, async ({ provider }) => {
      const result = await provider.launch(spec, {
        onStep: opts.json ? undefined : progressPrinter(ctx),
        signal: controller.signal,
        wait: opts.wait === true,
        ...(timeoutMs !== undefined ? { timeoutMs } : {}),
        rollbackOnTimeout: opts.rollbackOnTimeout === true,
        ...(opts.imageTransfer ? { imageTransfer: opts.imageTransfer } : {}),
      });
      if (opts.json) {
        ctx.io.stdout(`${JSON.stringify(result, null, 2)}\n`);
        return EXIT.ok;
      }
      const p = result.proxy;
      ctx.io.stderr(`${result.created ? 'launched' : 'already running:'} proxy ${p.name} on ${p.host} (instance ${p.id}; ${result.placement})\n`);
      if (result.url) ctx.io.stdout(`${result.url}\n`);
      else ctx.io.stderr(`not waited for readiness; see its address with: egress-desk proxies inspect ${p.name}\n`);
      return EXIT.ok;
    });
  } finally {
    process.removeListener('SIGINT', onSigint);
  }
}
