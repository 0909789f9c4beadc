/** `egress-desk proxies launch NAME`: the steps of shared/launch-steps.ts, progress on stderr, the proxy URL on stdout. */
import { type Command, Option } from 'commander';
import {
  LAUNCH_MANY_MAX,
  type LaunchManyField,
  type LaunchManyProblem,
  expandNames,
  parseStrategy,
} from '../../../shared/launch-many.js';
import { ProxySpecSchema } from '../../../shared/proxy.js';
import { launchStepsText } from '../../../shared/launch-steps.js';
import { IMAGE_TRANSFERS, type ImageTransfer } from '../../services/provider/kvm/images/host-fetch-plan.js';
import type { LaunchEvent, LaunchOptions } from '../../services/provider/kvm/ops/launch.js';
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
  count?: string;
  strategy?: string;
  imageTransfer?: ImageTransfer;
}

export function registerLaunchCommand(proxies: Command, kit: CommandKit): void {
  const cmd = proxies
    .command('launch')
    .description(`launch a proxy: ${launchStepsText()}`)
    .argument('<name>', 'proxy name (a lowercase DNS label)');
  addSpecOptions(cmd)
    .option('--wait', 'wait until the proxy port accepts connections, then print the proxy URL')
    .option('--timeout <seconds>', 'with --wait: give up after this long (default 600)')
    .option(
      '--rollback-on-timeout',
      'with --wait: remove the proxy when it is not ready in time (default: leave it for inspection)',
    )
    .option('--json', 'print the result as JSON')
    .option('--count <n>', `launch N proxies at once (1-${LAUNCH_MANY_MAX}); NAME then needs {n}, e.g. 'web-{n}'`)
    .option(
      '--strategy <how>',
      'with --count: spread (one per host first, then by free memory; the default), pack (fill one host first), or HOST,HOST… in turn',
    )
    .addOption(
      new Option(
        '--image-transfer <how>',
        'how the base image reaches an SSH host: fetch (the host downloads it), upload (from this machine), or auto (the default: fetch when the host can)',
      ).choices([...IMAGE_TRANSFERS]),
    )
    .action(
      kit.action(async (ctx, name: string, opts: LaunchCliOptions) =>
        opts.count !== undefined || opts.strategy !== undefined
          ? launchSeveral(ctx, name, opts)
          : launchProxy(ctx, name, opts),
      ),
    );
}

/** Steps on stderr, a line per start and end, bytes rewritten in place on a terminal: a launch's, or a bake's (images-bake.ts). */
export function progressPrinter(
  ctx: CliContext,
): (e: Pick<LaunchEvent, 'phase' | 'message' | 'done' | 'total'> & { step: string }) => void {
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

/** Runs `run` with a signal that Ctrl-C aborts: a launch rolls back instead of leaving half a proxy behind. */
async function interruptible<T>(run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const onSigint = (): void => controller.abort(new Error('interrupted (Ctrl-C)'));
  process.once('SIGINT', onSigint);
  try {
    return await run(controller.signal);
  } finally {
    process.removeListener('SIGINT', onSigint);
  }
}

/** What every launch of the command shares: the signal, --wait, --timeout, --rollback-on-timeout, --image-transfer. */
function launchOptions(
  opts: LaunchCliOptions,
  timeoutMs: number | undefined,
  signal: AbortSignal,
): Omit<LaunchOptions, 'onStep'> {
  return {
    signal,
    wait: opts.wait === true,
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    rollbackOnTimeout: opts.rollbackOnTimeout === true,
    ...(opts.imageTransfer ? { imageTransfer: opts.imageTransfer } : {}),
  };
}

function timeoutOf(opts: LaunchCliOptions): number | undefined {
  if (opts.timeout === undefined) return undefined;
  if (!/^\d+$/.test(opts.timeout) || Number(opts.timeout) < 1)
    throw new CliError(
      `--timeout: must be a whole number of seconds (got ${JSON.stringify(opts.timeout)})`,
      EXIT.usage,
    );
  return Number(opts.timeout) * 1000;
}

/** What the command line calls each field of a launch of many. */
const ARGUMENT: Record<LaunchManyField, string> = { count: '--count', name: 'NAME', strategy: '--strategy' };

/** A refused launch of many as a usage error: the argument, then the shared message (`--count: must be…`). */
export function usageError(problem: LaunchManyProblem): CliError {
  return new CliError(`${ARGUMENT[problem.field]}: ${problem.message}`, EXIT.usage);
}

/**
 * `--count N`: the names the pattern gives, placed by the strategy up front, launched a few
 * at a time. One line per proxy as each ends; exit 1 when any failed (the others are kept).
 */
async function launchSeveral(ctx: CliContext, pattern: string, opts: LaunchCliOptions): Promise<number> {
  if (opts.host !== undefined)
    throw new CliError('--host and --count/--strategy: name the hosts with --strategy HOST,HOST instead', EXIT.usage);
  const count = opts.count === undefined ? 1 : /^\d+$/.test(opts.count) ? Number(opts.count) : NaN;
  const expanded = expandNames(pattern, count);
  if ('problem' in expanded) throw usageError(expanded.problem);
  const strategy = parseStrategy(opts.strategy ?? 'spread');
  if ('problem' in strategy) throw usageError(strategy.problem);
  const specs = expanded.names.map((n) => ProxySpecSchema.parse(specFromOptions(n, opts)));
  const timeoutMs = timeoutOf(opts); // a bad --timeout is a usage error before any host is asked
  return interruptible((signal) =>
    withProvider(ctx, async ({ provider }) => {
      const outcomes = await provider.launchMany(specs, strategy, {
        ...launchOptions(opts, timeoutMs, signal),
        ...(opts.json
          ? {}
          : {
              onProxy: (n, e) =>
                e.phase === 'failed'
                  ? ctx.io.stderr(`${n}: failed: ${e.message ?? ''}\n`)
                  : e.phase === 'done'
                    ? ctx.io.stderr(`${n}: launched\n`)
                    : undefined,
            }),
      });
      const failed = outcomes.filter((o) => !o.ok);
      if (opts.json) {
        ctx.io.stdout(
          `${JSON.stringify(
            outcomes.map((o) =>
              o.ok
                ? {
                    name: o.name,
                    host: o.host,
                    ok: true,
                    created: o.result.created,
                    ...(o.result.url ? { url: o.result.url } : {}),
                  }
                : { name: o.name, host: o.host, ok: false, error: o.error.message },
            ),
            null,
            2,
          )}\n`,
        );
      } else {
        for (const o of outcomes) if (o.ok && o.result.url) ctx.io.stdout(`${o.result.url}\n`);
        ctx.io.stderr(
          `${outcomes.length - failed.length} of ${outcomes.length} launched${failed.length ? `; failed: ${failed.map((f) => f.name).join(', ')} (the others are kept)` : ''}\n`,
        );
      }
      return failed.length ? EXIT.failed : EXIT.ok;
    }),
  );
}

async function launchProxy(ctx: CliContext, name: string, opts: LaunchCliOptions): Promise<number> {
  const spec = ProxySpecSchema.parse(specFromOptions(name, opts));
  const timeoutMs = timeoutOf(opts); // a bad --timeout is a usage error before any host is asked
  return interruptible((signal) =>
    withProvider(ctx, async ({ provider }) => {
      const result = await provider.launch(spec, {
        ...launchOptions(opts, timeoutMs, signal),
        onStep: opts.json ? undefined : progressPrinter(ctx),
      });
      if (opts.json) {
        ctx.io.stdout(`${JSON.stringify(result, null, 2)}\n`);
        return EXIT.ok;
      }
      const p = result.proxy;
      ctx.io.stderr(
        `${result.created ? 'launched' : 'already running:'} proxy ${p.name} on ${p.host} (instance ${p.id}; ${result.placement})\n`,
      );
      if (result.url) ctx.io.stdout(`${result.url}\n`);
      else
        ctx.io.stderr(
          `not waited for readiness; print its URL once it has an address with: egress-desk proxies url ${p.name}\n`,
        );
      return EXIT.ok;
    }),
  );
}
