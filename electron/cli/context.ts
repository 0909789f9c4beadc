/** Resolves where a command's config lives, from `--config`, EGRESS_DESK_HOME and the platform. */
import { resolve } from 'node:path';
import { configPath, dataDir } from '../services/config/paths.js';
import type { CliIo, GlobalOptions } from './io.js';

export interface CliContext {
  io: CliIo;
  options: GlobalOptions;
  /** The config file commands use when not given one: `--config`, else the app's own. */
  configFile: string;
  /** True when the config file was named with `--config` (then it must exist). */
  configExplicit: boolean;
  dataDir: string;
  /** Prints a diagnostic line on stderr when `--verbose` is set. */
  debug: (message: string) => void;
}

export function createContext(io: CliIo, options: GlobalOptions): CliContext {
  const dir = dataDir(io.env);
  const explicit = options.config !== undefined;
  return {
    io,
    options,
    dataDir: dir,
    configFile: explicit ? resolve(io.cwd, options.config!) : configPath(dir),
    configExplicit: explicit,
    debug: (message) => {
      if (options.verbose) io.stderr(`debug: ${message}\n`);
    },
  };
}
