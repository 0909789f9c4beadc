/**
 * The `egress-desk` command line: the same services as the app, on plain Node.
 * {@link runCli} never throws and never prints a stack trace for bad input: every
 * failure becomes one clear message and an exit code (docs/cli.md).
 */
import { Command, CommanderError } from 'commander';
import { z } from 'zod';
import { formatIssue } from '../../shared/config.js';
import { ConfigNotReplacedError } from '../services/config/config-store.js';
import { ConfigInvalidError, ConfigReadError } from '../services/config/document.js';
import { registerConfigCommands } from './commands/config.js';
import { registerImageCommands } from './commands/images.js';
import { registerHostCommands } from './commands/hosts.js';
import { registerProxyCommands } from './commands/proxies.js';
import { registerServeCommand } from './commands/serve.js';
import { registerMetricsCommand } from './commands/metrics.js';
import { registerGatewayCommand } from './commands/gateway.js';
import { CliError, type CliIo, EXIT } from './io.js';
import { createKit } from './kit.js';
import { VERSION } from './version.js';
import { messageOf } from '../../shared/errors.js';

/** Builds the command tree; `setExit` receives each action's exit code. */
export function buildProgram(io: CliIo, setExit: (code: number) => void): Command {
  const program = new Command('egress-desk')
    .description('Launch and manage egress proxies on KVM/libvirt hosts, local or over SSH.')
    .version(VERSION, '-V, --version')
    .option('-c, --config <file>', 'config file to use instead of the app config')
    .option('-v, --verbose', 'print diagnostics on stderr')
    .showHelpAfterError('(run with --help for usage)');

  const kit = createKit(io, setExit);
  registerConfigCommands(program, kit);
  registerHostCommands(program, kit);
  registerProxyCommands(program, kit);
  registerImageCommands(program, kit);
  registerServeCommand(program, kit);
  registerMetricsCommand(program, kit);
  registerGatewayCommand(program, kit);

  // Every command writes through `io` and reports errors to runCli instead of exiting.
  const configure = (cmd: Command): void => {
    cmd.configureOutput({ writeOut: io.stdout, writeErr: io.stderr }).exitOverride();
    cmd.commands.forEach(configure);
  };
  configure(program);
  return program;
}

/** Runs the CLI with `argv` (without node and script) and resolves to the exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let exitCode: number = EXIT.ok;
  const program = buildProgram(io, (code) => (exitCode = code));
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (err) {
    return reportError(err, io, argv.includes('--verbose') || argv.includes('-v'));
  }
}

const BUILTIN_ERRORS = new Set([
  'Error',
  'TypeError',
  'RangeError',
  'ReferenceError',
  'SyntaxError',
  'EvalError',
  'URIError',
  'AggregateError',
]);

function reportError(err: unknown, io: CliIo, verbose: boolean): number {
  if (err instanceof CommanderError) {
    // Help and version exit 0; anything else is a usage error commander has already printed.
    return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
  }
  if (err instanceof ConfigReadError) {
    io.stderr(`egress-desk: cannot read ${err.message}\n`);
    return EXIT.usage;
  }
  if (err instanceof ConfigInvalidError) {
    io.stderr(
      `egress-desk: ${err.file} is not a valid config:\n${err.issues.map((i) => `  ${formatIssue(i)}\n`).join('')}`,
    );
    return EXIT.failed;
  }
  if (err instanceof CliError) {
    io.stderr(`egress-desk: ${err.message}\n`);
    return err.exitCode;
  }
  if (err instanceof ConfigNotReplacedError) {
    io.stderr(`egress-desk: ${err.message}\n`);
    return EXIT.failed;
  }
  if (err instanceof z.ZodError) {
    io.stderr(
      `egress-desk: invalid input:\n${err.issues.map((i) => `  ${i.path.join('.') || 'input'}: ${i.message}\n`).join('')}`,
    );
    return EXIT.failed;
  }
  const message = messageOf(err);
  io.stderr(`egress-desk: ${message}\n`);
  // Our own typed errors carry a full explanation; JavaScript's built-in ones mean a bug here.
  if (err instanceof Error && !BUILTIN_ERRORS.has(err.name)) return EXIT.failed;
  if (verbose && err instanceof Error && err.stack) io.stderr(`${err.stack}\n`);
  else io.stderr('(run with --verbose for details)\n');
  return EXIT.failed;
}
