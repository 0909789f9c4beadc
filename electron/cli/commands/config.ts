/** `egress-desk config …`: validate, export and locate provider configs. */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { Option } from 'commander';
import { formatIssue, providerWithDefaults } from '../../../shared/config.js';
import {
  ConfigInvalidError,
  type ExportFormat,
  loadConfigFile,
  serializeConfig,
} from '../../services/config/document.js';
import { loadConfigForCommand } from '../load-config.js';
import type { CommandKit } from '../kit.js';
import { EXIT } from '../io.js';

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
        const target = file !== undefined ? resolve(ctx.io.cwd, file) : ctx.configFile;
        ctx.debug(`validating ${target}`);
        try {
          await loadConfigFile(target);
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
    .addOption(
      new Option('--format <format>', 'operator YAML or JSON').choices(['operator', 'json']).default('operator'),
    )
    .action(
      kit.action(async (ctx, file: string | undefined, opts: { format: ExportFormat }) => {
        const { config: loaded } = await loadConfigForCommand(ctx, file);
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
