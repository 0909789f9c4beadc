/** Binds each channel of the contract to the service that answers it. */
import type { AppInfo } from '../../shared/ipc.js';
import type { ConfigService } from '../services/config/config-service.js';
import type { Handlers } from './router.js';

export interface Services {
  config: ConfigService;
  info: AppInfo;
}

export function createHandlers(services: Services): Handlers {
  return {
    'app:info': () => services.info,
    'config:get': () => services.config.state(),
  };
}
