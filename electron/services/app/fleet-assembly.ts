/**
 * The one composition of the provider with its collaborators: a connection per host
 * (HostConnections over the SSH pool), libvirt's client API per connection, the local
 * image cache, the credentials file and the readiness probe. The app service (both front
 * ends) and the CLI build their provider here, so the wiring is written once.
 */
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import type { ResolvedKVMConfig, ResolvedKVMHost } from '../../../shared/config.js';
import type { HostInfo, HostLoad, HostStatus } from '../../../shared/hosts.js';
import type { SshSettingsView } from '../../../shared/ssh-settings.js';
import { HostKeyUnknownError, type SshConnectionPool, decryptKeyFile, sshTargetOf } from '../../transport/index.js';
import { type CredentialsStore, FileCredentialsStore, credentialsPath } from '../credentials/credentials-store.js';
import { FileCredentialsWithKeyringNames } from '../credentials/keyring-credentials-store.js';
import {
  FileSecretStore,
  SAFE_STORAGE_ENCODING,
  type SecretCodec,
  safeSecretsPath,
} from '../credentials/secret-store.js';

/** Reads the desktop app's secrets file for its key names only: its values need the OS keychain. */
const KEYS_ONLY: SecretCodec = {
  encoding: SAFE_STORAGE_ENCODING,
  encode: () => {
    throw new Error('only the desktop app writes its keyring file');
  },
  decode: () => {
    throw new Error('only the desktop app can decrypt its keyring file');
  },
};
import { collectHostInfo } from '../hosts/host-info.js';
import { HostLoadReader } from '../hosts/host-load.js';
import { sshSettingsView } from '../hosts/ssh-settings-view.js';
import { HostConnections } from '../hosts/host-connections.js';
import type { Passphrases } from '../hosts/passphrases.js';
import { type CachedImage, ImageCache, type PartialImage } from '../images/image-cache.js';
import { ClientApi } from '../provider/kvm/client-api.js';
import type { LocalImageSource } from '../provider/kvm/context.js';
import type { HostShell, ImageTransfer } from '../provider/kvm/images/host-fetch-plan.js';
import { readSettings, updateSettings } from '../settings/settings-file.js';
import { imageTransferOf, withLastTransfer } from '../../../shared/app-settings.js';
import type { LibvirtApi } from '../provider/kvm/libvirt-api.js';
import { createPortProbe } from '../provider/kvm/port-probe.js';
import { KvmProvider } from '../provider/kvm/provider.js';

/** The hosts of a backend, as the app service needs them. */
export interface HostDirectory {
  /** Every host's status, in config order. */
  statuses(): HostStatus[];
  status(name: string): HostStatus;
  /** Connects when needed and gathers the host's facts; rejects with why it cannot. */
  info(name: string): Promise<HostInfo>;
  /** The host's CPU (since the previous ask), memory and pools now; connects when needed. */
  load(name: string): Promise<HostLoad>;
  /**
   * Records the host key the person confirmed (`fingerprint` must be the one the host
   * presents now: anything else is refused), so that the next connection succeeds.
   */
  trust(name: string, fingerprint: string): Promise<void>;
  /**
   * Answers a host's passphrase request (state auth-needed, needs passphrase): a wrong
   * passphrase leaves it auth-needed saying so; a right one connects, and with `remember`
   * is stored in the secret store (which may refuse: the error says why). The passphrase is
   * never part of the status or of any message.
   */
  unlock(name: string, passphrase: string, remember: boolean): Promise<void>;
  /**
   * The host's effective SSH settings as a person reads them (the same view as `hosts
   * ssh-config`): ssh_config read afresh, nothing connects. Rejects for the local host
   * ({@link NotAnSshHostError}) and for a config OpenSSH would refuse (naming file and line).
   */
  sshSettings(name: string): Promise<SshSettingsView>;
  /** Status changes; returns the unsubscribe. */
  onStatus(listener: (status: HostStatus) => void): () => void;
}

/** The local image cache as the app lists and fills it (ImageCache fits). */
export interface ImageDirectory extends LocalImageSource {
  list(): Promise<CachedImage[]>;
  partials(): Promise<PartialImage[]>;
  /** Downloads an image known by its publisher's SHA-512, checks it, and stores it by the SHA-256 computed in the same pass. */
  ensureBySha512: ImageCache['ensureBySha512'];
}

/** A provider with everything it talks to, for one config. */
export interface FleetAssembly {
  config: ResolvedKVMConfig;
  provider: KvmProvider;
  /** libvirt on one host (the provider's own accessor: one API object per live connection). */
  apiFor(host: string): Promise<LibvirtApi>;
  hosts: HostDirectory;
  images: ImageDirectory;
  credentials: CredentialsStore;
  /**
   * For an SSH host, opens a TCP stream from the host itself to `address:port` (a
   * direct-tcpip channel of its pooled connection): the health probe's way to a guest on a
   * network only the host reaches. Undefined for this machine.
   */
  tunnelFor?(host: string): ((address: string, port: number) => Promise<Duplex>) | undefined;
  /** Closes every connection. */
  close(): Promise<void>;
}

export interface FleetAssemblyOptions {
  config: ResolvedKVMConfig;
  dataDir: string;
  sshPool: SshConnectionPool;
  env: Readonly<Record<string, string | undefined>>;
  /** Called when a host's client is first used (the CLI's --verbose line). */
  onConnected?: (host: string, via: string) => void;
  /** Called when a host's daemon asks for polkit authorisation (the CLI's --verbose line). */
  onPolkit?: (host: string) => void;
  /** Reopen lost connections by themselves, with backoff (the app; see HostConnectionsOptions.reconnect). */
  reconnect?: { firstDelayMs?: number; maxDelayMs?: number };
  /** Where proxy credentials are kept; default: the 0600 credentials file (which knows the desktop app's keyring names). */
  credentials?: CredentialsStore;
  /** The passphrases known to the app (the pool's askPassphrase should be its `ask`); without it, unlock is refused. */
  passphrases?: Passphrases;
  /** Per host, how base images reach it; default: the app's settings file in the data directory. */
  imageTransfer?: (host: string) => Promise<ImageTransfer>;
}

/** A passphrase was given for a host that asks for none. */
export class NoPassphraseNeededError extends Error {
  override readonly name = 'NoPassphraseNeededError';
}

/** SSH settings were asked of a host reached without SSH (address: local). */
export class NotAnSshHostError extends Error {
  override readonly name = 'NotAnSshHostError';
}

/** The fingerprint did not match what the host presents (or it presents no unknown key). */
export class HostKeyNotConfirmedError extends Error {
  override readonly name = 'HostKeyNotConfirmedError';
}

export function assembleFleet(options: FleetAssemblyOptions): FleetAssembly {
  const { config, sshPool } = options;
  const { passphrases } = options;
  const connections = new HostConnections({
    hosts: config.hosts,
    sshPool,
    ...(passphrases ? { secretStore: () => passphrases.storeInfo() } : {}),
    ...(options.onPolkit ? { onPolkit: options.onPolkit } : {}),
    ...(options.reconnect ? { reconnect: options.reconnect } : {}),
  });
  const apis = new Map<string, { client: unknown; api: LibvirtApi }>();
  /** The last unknown-key error per host: what `trust` records, once confirmed. */
  const unknownKeys = new Map<string, HostKeyUnknownError>();

  const client = async (host: string) => {
    try {
      const c = await connections.client(host);
      unknownKeys.delete(host);
      return c;
    } catch (err) {
      if (err instanceof HostKeyUnknownError) unknownKeys.set(host, err);
      throw err;
    }
  };
  const apiFor = async (host: string): Promise<LibvirtApi> => {
    const c = await client(host);
    const known = apis.get(host);
    if (known && known.client === c) return known.api;
    options.onConnected?.(host, connections.status(host).via);
    const api = new ClientApi(c);
    apis.set(host, { client: c, api });
    return api;
  };
  const images = new ImageCache({ dir: join(options.dataDir, 'images') });
  const credentials =
    options.credentials ??
    new FileCredentialsWithKeyringNames(
      new FileCredentialsStore(credentialsPath(options.dataDir)),
      new FileSecretStore(safeSecretsPath(options.dataDir), { codec: KEYS_ONLY }),
    );
  // Commands on an SSH host run over its pooled connection (fetch-on-host); this machine has none.
  const hostShell = (host: ResolvedKVMHost): HostShell | undefined =>
    host.address === 'local'
      ? undefined
      : async (command, signal) => sshPool.exec(await sshPool.resolve(sshTargetOf(host)), command, signal);
  const provider = new KvmProvider({
    config,
    apiFor,
    images,
    credentials,
    probe: createPortProbe({ sshPool, env: options.env }),
    hostShell,
    // Read at each launch: a change made in the app or with `hosts image-transfer` applies at once.
    imageTransfer:
      options.imageTransfer ?? (async (host) => imageTransferOf(await readSettings(options.dataDir), host)),
    // Kept beside the choice, so that the Hosts view and `hosts image-transfer` say why the last image was not fetched.
    onImageTransfer: async (host, transfer) => {
      await updateSettings(options.dataDir, (s) =>
        withLastTransfer(s, host, {
          ...transfer,
          ...(transfer.reason ? { reason: transfer.reason.slice(0, 2000) } : {}),
          at: new Date().toISOString(),
        }),
      );
    },
  });

  // Each host's last CPU counters: a share needs the previous reading.
  const loads = new HostLoadReader();
  const hosts: HostDirectory = {
    statuses: () => connections.statuses(),
    status: (name) => connections.status(name),
    info: async (name) => collectHostInfo(await client(name)),
    load: async (name) => loads.read(name, await client(name)),
    trust: async (name, fingerprint) => {
      let pending = unknownKeys.get(name);
      if (!pending) {
        // Nothing asked yet (or a restart since): connect once to see what the host presents.
        await client(name).catch(() => undefined);
        pending = unknownKeys.get(name);
      }
      if (!pending)
        throw new HostKeyNotConfirmedError(
          `${name} presents no unknown host key: ${connections.status(name).message ?? `it is ${connections.status(name).state}`}`,
        );
      if (pending.fingerprint !== fingerprint) {
        throw new HostKeyNotConfirmedError(
          `${name} presents the key ${pending.fingerprint}, not the ${fingerprint} you confirmed: nothing was recorded. Check the fingerprint with the host's administrator.`,
        );
      }
      await sshPool.trust(pending);
      unknownKeys.delete(name);
    },
    unlock: async (name, passphrase, remember) => {
      let status = connections.status(name);
      if (status.needs !== 'passphrase') {
        // Nothing asked yet (or a restart since): connect once to see whether a key needs one.
        await client(name).catch(() => undefined);
        status = connections.status(name);
      }
      if (status.needs !== 'passphrase' || !status.keyFile)
        throw new NoPassphraseNeededError(
          `${name} asks for no passphrase: it is ${status.state}${status.message ? ` (${status.message})` : ''}`,
        );
      if (!passphrases)
        throw new NoPassphraseNeededError(
          'this front end cannot take passphrases: use an SSH agent (ssh-add) for this key',
        );
      const unlocked = await decryptKeyFile(status.keyFile, passphrase);
      if (!unlocked.ok) {
        connections.wrongPassphrase(name, status.keyFile, unlocked.message);
        return;
      }
      sshPool.addKey(status.keyFile, unlocked.key);
      let notRemembered: unknown;
      await passphrases.give(status.keyFile, passphrase, remember).catch((err: unknown) => (notRemembered = err));
      await client(name).catch(() => undefined);
      if (notRemembered) throw notRemembered;
    },
    sshSettings: async (name) => {
      const host = config.hosts.find((h) => h.name === name);
      if (!host) throw new Error(`no host named ${JSON.stringify(name)}`);
      if (host.address === 'local')
        throw new NotAnSshHostError(`${name} is this machine (address: local): no SSH involved`);
      const settings = await sshPool.resolve(sshTargetOf(host));
      return sshSettingsView(name, settings, sshPool.homeDir);
    },
    onStatus: (listener) => {
      connections.on('status', listener);
      return () => void connections.off('status', listener);
    },
  };

  return {
    config,
    provider,
    apiFor,
    hosts,
    images,
    credentials,
    tunnelFor: (name) => {
      const host = config.hosts.find((h) => h.name === name);
      if (!host || host.address === 'local') return undefined;
      return async (address, port) => sshPool.openTcp(await sshPool.resolve(sshTargetOf(host)), address, port);
    },
    close: async () => {
      await connections.close();
      await sshPool.close();
    },
  };
}
