/** Resolves where a command's config lives, from `--config`, EGRESS_DESK_HOME and the platform. */
import { resolve } from 'node:path';
import { configPath, dataDir } from '../services/config/paths.js';
import { type Logger, createLogger } from '../services/log/logger.js';
import type { CliIo, GlobalOptions } from './io.js';

export interface CliContext {
  io: CliIo;
  options: GlobalOptions;
  /** The config file commands use when not given one: `--config`, else the app's own. */
  configFile: string;
  /** True when the config file was named with `--config` (then it must exist). */
  configExplicit: boolean;
  dataDir: string;
  /** The log file in the data directory (created on first use); `--verbose` echoes it on stderr. */
  readonly log: Logger;
  /** With `--verbose`: logs a diagnostic line and shows it on stderr. Without: nothing. */
  debug: (message: string) => void;
}

export function createContext(io: CliIo, options: GlobalOptions): CliContext {
  const dir = dataDir(io.env);
  const explicit = options.config !== undefined;
  let log: Logger | undefined;
  const context: CliContext = {
    io,
    options,
    dataDir: dir,
    configFile: explicit ? resolve(io.cwd, options.config!) : configPath(dir),
    configExplicit: explicit,
    get log() {
      log ??= createLogger({
        dataDir: dir,
        sync: true,
        level: options.verbose ? 'debug' : 'info',
        ...(options.verbose ? { echo: io.stderr } : {}),
      });
      return log;
    },
    // Diagnostics open the log only with --verbose: a read-only command leaves the disk as it was.
    debug: (message) => {
      if (options.verbose) context.log.debug(message);
    },
  };
  return context;
}
