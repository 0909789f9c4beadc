/** How commands get their config: a file argument, else `--config`, else the app's own. */
import { resolve } from 'node:path';
import { type ProviderConfig, type ResolvedKVMConfig, withDefaults } from '../../shared/config.js';
import { defaultConfig } from '../services/config/default-config.js';
import { ConfigReadError, loadConfigFile } from '../services/config/document.js';
import type { CliContext } from './context.js';
import { CliError, EXIT } from './io.js';

/**
 * Loads the config a command works on. The app's own config may not exist yet: then the
 * default that a first start writes stands in (commands that only read never write it).
 */
export async function loadConfigForCommand(
  ctx: CliContext,
  file?: string,
): Promise<{ file: string; config: ProviderConfig }> {
  const target = file !== undefined ? resolve(ctx.io.cwd, file) : ctx.configFile;
  const implicit = file === undefined && !ctx.configExplicit;
  try {
    ctx.debug(`reading ${target}`);
    return { file: target, config: await loadConfigFile(target) };
  } catch (err) {
    if (implicit && err instanceof ConfigReadError && err.reason === 'no such file') {
      ctx.io.stderr(`note: ${target} does not exist yet; using the default config a first start writes there\n`);
      return { file: target, config: defaultConfig() };
    }
    throw err;
  }
}

/** The KVM block with defaults applied; a config of another provider type is refused. */
export async function loadKvmConfig(ctx: CliContext): Promise<ResolvedKVMConfig> {
  const { file, config } = await loadConfigForCommand(ctx);
  if (config.type !== 'kvm' || !config.kvm) {
    throw new CliError(
      `${file} configures the ${config.type} provider; Egress Desk manages kvm providers`,
      EXIT.failed,
    );
  }
  return withDefaults(config.kvm);
}
