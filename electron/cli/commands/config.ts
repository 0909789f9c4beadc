/** `egress-desk config …`: validate, export and locate provider configs. */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { Option } from 'commander';
import { type ProviderConfig, formatIssue, providerWithDefaults } from '../../../shared/config.js';
import { defaultConfig } from '../../services/config/default-config.js';
import {
  ConfigInvalidError,
  ConfigReadError,
  type ExportFormat,
  loadConfigFile,
  serializeConfig,
} from '../../services/config/document.js';
import type { CliContext } from '../context.js';
import type { CommandKit } from '../program.js';
import { EXIT } from '../io.js';

/** The file a command works on: its argument, else `--config`, else the app's own config. */
function fileFor(ctx: CliContext, file: string | undefined): { file: string; implicit: boolean } {
  if (file !== undefined) return { file: resolve(ctx.io.cwd, file), implicit: false };
  return { file: ctx.configFile, implicit: !ctx.configExplicit };
}

/**
 * Loads the file; the app's own config may not exist yet, and then the default it would
 * get on first start stands in (read-only commands never write it).
 */
async function loadForReading(ctx: CliContext, file: string, implicit: boolean): Promise<ProviderConfig> {
  try {
    ctx.debug(`reading ${file}`);
    return await loadConfigFile(file);
  } catch (err) {
    if (implicit && err instanceof ConfigReadError && err.reason === 'no such file') {
      ctx.io.stderr(`note: ${file} does not exist yet; using the default config a first start writes there\n`);
      return defaultConfig();
    }
    throw err;
  }
}

export function registerConfigCommands(program: Command, kit: CommandKit): void {
  const config = program
    .command('config')
    .description('validate, export and locate provider configs (the operator format)');

  config
    .command('validate')
    .description('check a config file; prints "valid", or one line per problem naming the field')
    .argument('[file]', 'YAML or JSON file (default: --config, else the app config)')
    .option('--json', 'print the result as JSON: {"valid": bool, "issues": [{path, message}]}')
    .action(
      kit.action(async (ctx, file: string | undefined, opts: { json?: boolean }) => {
      const target = fileFor(ctx, file);
      ctx.debug(`validating ${target.file}`);
      try {
        await loadConfigFile(target.file);
      } catch (err) {
        if (!(err instanceof ConfigInvalidError)) throw err;
        if (opts.json) ctx.io.stdout(`${JSON.stringify({ valid: false, issues: err.issues }, null, 2)}\n`);
        else ctx.io.stdout(err.issues.map((i) => `${formatIssue(i)}\n`).join(''));
        return EXIT.failed;
      }
      ctx.io.stdout(opts.json ? `${JSON.stringify({ valid: true, issues: [] }, null, 2)}\n` : 'valid\n');
      return EXIT.ok;
      }),
    );

  config
    .command('export')
    .description('print a config normalised, with every default applied')
    .argument('[file]', 'YAML or JSON file (default: --config, else the app config)')
    .addOption(new Option('--format <format>', 'operator YAML or JSON').choices(['operator', 'json']).default('operator'))
    .action(
      kit.action(async (ctx, file: string | undefined, opts: { format: ExportFormat }) => {
      const target = fileFor(ctx, file);
      const loaded = await loadForReading(ctx, target.file, target.implicit);
      ctx.io.stdout(serializeConfig(providerWithDefaults(loaded), opts.format));
      return EXIT.ok;
      }),
    );

  config
    .command('path')
    .description('print the path of the config file in use')
    .action(
      kit.action((ctx) => {
        ctx.io.stdout(`${ctx.configFile}\n`);
        return EXIT.ok;
      }),
    );
}
