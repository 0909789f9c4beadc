/**
 * Builds the backend every front end serves: the services, their handlers and the router.
 * The Electron shell and `egress-desk serve` both call this, so a browser through serve
 * mode talks to exactly what the app window talks to.
 */
import type { AppInfo } from '../../shared/ipc.js';
import { ConfigService } from '../services/config/config-service.js';
import { ConfigStore } from '../services/config/config-store.js';
import { configPath } from '../services/config/paths.js';
import { createHandlers } from './handlers.js';
import { type Router, createRouter } from './router.js';

/** The backend of one front end. */
export interface AppServices {
  router: Router;
  info: AppInfo;
}

export interface AppServicesOptions {
  /** The app version shown to the renderer (Electron's `app.getVersion()`, or the CLI's). */
  version: string;
  /** The config file; the data directory's own `config.yaml` when absent. */
  configFile?: string;
}

/** The services, handlers and router for a data directory, as seen from `frontEnd`. */
export function createAppServices(dataDir: string, frontEnd: AppInfo['frontEnd'], options: AppServicesOptions): AppServices {
  const info: AppInfo = { name: 'Egress Desk', version: options.version, frontEnd, dataDir };
  const config = new ConfigService(new ConfigStore(options.configFile ?? configPath(dataDir)));
  return { info, router: createRouter(createHandlers({ config, info })) };
}
