/** Binds each channel of the contract to the service that answers it. */
import type { AppInfo } from '../../shared/ipc.js';
import type { AppService } from '../services/app/app-service.js';
import type { ConfigService } from '../services/config/config-service.js';
import type { Handlers } from './router.js';

export interface Services {
  config: ConfigService;
  info: AppInfo;
  app: AppService;
}

export function createHandlers(services: Services): Handlers {
  const { app } = services;
  return {
    'app:info': () => services.info,
    'config:get': () => services.config.state(),
    'config:export': (input) => app.configExport(input),
    'config:previewImport': (input) => app.configPreviewImport(input),
    'config:import': (input) => app.configImport(input),
    'hosts:list': () => app.hostsList(),
    'hosts:trust': (input) => app.hostsTrust(input),
    'hosts:add': (input) => app.hostsAdd(input),
    'hosts:update': (input) => app.hostsUpdate(input),
    'hosts:remove': (input) => app.hostsRemove(input),
    'hosts:unlock': (input) => app.hostsUnlock(input),
    'hosts:sshSettings': (input) => app.hostsSshSettings(input),
    'machineTypes:list': () => app.machineTypesList(),
    'images:list': () => app.imagesList(),
    'images:pull': (input) => app.imagesPull(input),
    'images:lookup': (input) => app.imagesLookup(input),
    'images:verifySha512': (input) => app.imagesVerifySha512(input),
    'machineTypes:save': (input) => app.machineTypesSave(input),
    'machineTypes:remove': (input) => app.machineTypesRemove(input),
    'images:save': (input) => app.imagesSave(input),
    'images:remove': (input) => app.imagesRemove(input),
    'defaults:set': (input) => app.defaultsSet(input),
    'proxies:list': () => app.proxiesList(),
    'proxies:inspect': (input) => app.proxiesInspect(input),
    'proxies:place': (input) => app.proxiesPlace(input),
    'proxies:launch': (input) => app.proxiesLaunch(input),
    'proxies:start': (input) => app.proxiesStart(input),
    'proxies:stop': (input) => app.proxiesStop(input),
    'proxies:delete': (input) => app.proxiesDelete(input),
    'proxies:url': (input) => app.proxiesUrl(input),
    'tasks:list': () => app.tasksList(),
    'tasks:cancel': (input) => app.tasksCancel(input),
    'console:open': (input) => app.consoles.open(input),
    'console:write': (input) => app.consoles.write(input),
    'console:close': (input) => app.consoles.close(input),
  };
}
