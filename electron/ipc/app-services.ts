/**
 * Builds the backend every front end serves: the services, their handlers and the router.
 * The Electron shell and `egress-desk serve` both call this, so a browser through serve
 * mode talks to exactly what the app window talks to — the same tasks, the same events.
 */
import type { ResolvedKVMConfig } from '../../shared/config.js';
import type { AppInfo } from '../../shared/ipc.js';
import { AppService } from '../services/app/app-service.js';
import { type FleetAssembly, assembleFleet } from '../services/app/fleet-assembly.js';
import type { Probe } from '../services/app/fleet-health.js';
import type { StatsClock } from '../services/app/fleet-stats.js';
import { settingsPath } from '../services/settings/settings-file.js';
import { ConfigService } from '../services/config/config-service.js';
import { ConfigStore } from '../services/config/config-store.js';
import { configPath, keyringDir } from '../services/config/paths.js';
import { FileCredentialsStore, credentialsPath } from '../services/credentials/credentials-store.js';
import { KeyringCredentialsStore } from '../services/credentials/keyring-credentials-store.js';
import { FileSecretStore, type SecretStore, secretsPath } from '../services/credentials/secret-store.js';
import { Passphrases } from '../services/hosts/passphrases.js';
import { SshConnectionPool } from '../transport/index.js';
import { createHandlers } from './handlers.js';
import { type Router, createRouter } from './router.js';

/** The backend of one front end. */
export interface AppServices {
  router: Router;
  info: AppInfo;
  app: AppService;
  /** Cancels running tasks and closes every connection (on quit). */
  close(): Promise<void>;
}

export interface AppServicesOptions {
  /** The app version shown to the renderer (Electron's `app.getVersion()`, or the CLI's). */
  version: string;
  /** The config file; the data directory's own `config.yaml` when absent. */
  configFile?: string;
  /** Builds the provider and its collaborators for a config; tests pass one over in-memory hosts. */
  openBackend?: (config: ResolvedKVMConfig) => FleetAssembly;
  /** The background re-listing period (default 60 s; 0 turns it off). */
  reconcileIntervalMs?: number;
  /** The traffic sampler's clock (default the process's): tests drive the 5 s / 60 s cadence. */
  statsClock?: StatsClock;
  /** The health probe (default through the network); tests pass one that never leaves the process. */
  probe?: Probe;
  /** False: never bake after a launch, whatever settings.json says (tests whose launches are not about baking). */
  autoBake?: false;
  /** Where remembered SSH passphrases go: the Electron shell's safeStorage store; else `<dataDir>/secrets.json` (0600). */
  secrets?: SecretStore;
  /** The desktop app's OS keychain store: proxy credentials go there (the 0600 file stays behind it for the CLI's proxies). */
  keyring?: SecretStore;
}

/** The services, handlers and router for a data directory, as seen from `frontEnd`. */
export function createAppServices(
  dataDir: string,
  frontEnd: AppInfo['frontEnd'],
  options: AppServicesOptions,
): AppServices {
  const info: AppInfo = { name: 'Egress Desk', version: options.version, frontEnd, dataDir };
  const store = new ConfigStore(options.configFile ?? configPath(dataDir));
  const config = new ConfigService(store);
  // Encrypted keys are unlocked with what the person gave (hosts:unlock) or asked to remember; else the host asks.
  const passphrases = new Passphrases(options.secrets ?? new FileSecretStore(secretsPath(dataDir)));
  const openBackend =
    options.openBackend ??
    ((kvm: ResolvedKVMConfig) =>
      assembleFleet({
        config: kvm,
        dataDir,
        sshPool: new SshConnectionPool({ env: process.env, askPassphrase: passphrases.ask }),
        env: process.env,
        passphrases,
        // The app watches its hosts for as long as it runs: a lost connection comes back by itself.
        reconnect: {},
        ...(options.keyring
          ? {
              credentials: new KeyringCredentialsStore(
                options.keyring,
                new FileCredentialsStore(credentialsPath(dataDir)),
              ),
            }
          : {}),
      }));
  const app = new AppService({
    store,
    config,
    openBackend,
    ...(options.reconcileIntervalMs !== undefined ? { reconcileIntervalMs: options.reconcileIntervalMs } : {}),
    ...(options.statsClock ? { statsClock: options.statsClock } : {}),
    ...(options.probe ? { probe: options.probe } : {}),
    ...(options.autoBake === false ? { autoBake: false as const } : {}),
    settingsFile: settingsPath(dataDir),
    keyringDir: keyringDir(dataDir),
  });
  const close = () => app.close();
  const router = createRouter(createHandlers({ info, app }), { subscribe: (sink) => app.subscribe(sink), close });
  return { info, router, app, close };
}
