/** The provider as one CLI command uses it: the config's hosts, the shared cache and credentials, closed at the end. */
import { join } from 'node:path';
import type { ResolvedKVMConfig } from '../../../shared/config.js';
import { FileCredentialsStore, credentialsPath } from '../../services/credentials/credentials-store.js';
import { HostConnections } from '../../services/hosts/host-connections.js';
import { ImageCache } from '../../services/images/image-cache.js';
import { ClientApi } from '../../services/provider/kvm/client-api.js';
import type { LibvirtApi } from '../../services/provider/kvm/libvirt-api.js';
import { createPortProbe } from '../../services/provider/kvm/port-probe.js';
import { KvmProvider } from '../../services/provider/kvm/provider.js';
import type { CliContext } from '../context.js';
import { loadKvmConfig } from '../load-config.js';
import { cliSshPool } from './hosts.js';

export interface CliProvider {
  provider: KvmProvider;
  config: ResolvedKVMConfig;
  close: () => Promise<void>;
}

export async function openProvider(ctx: CliContext): Promise<CliProvider> {
  const config = await loadKvmConfig(ctx);
  const sshPool = cliSshPool(ctx);
  const connections = new HostConnections({ hosts: config.hosts, sshPool });
  const apis = new Map<string, { client: unknown; api: LibvirtApi }>();
  const provider = new KvmProvider({
    config,
    apiFor: async (host) => {
      const client = await connections.client(host);
      const known = apis.get(host);
      if (known && known.client === client) return known.api;
      ctx.debug(`${host}: connected through ${connections.status(host).via}`);
      const api = new ClientApi(client);
      apis.set(host, { client, api });
      return api;
    },
    images: new ImageCache({ dir: join(ctx.dataDir, 'images') }),
    credentials: new FileCredentialsStore(credentialsPath(ctx.dataDir)),
    probe: createPortProbe({ sshPool, env: ctx.io.env }),
  });
  return {
    provider,
    config,
    close: async () => {
      await connections.close();
      await sshPool.close();
    },
  };
}

/** Runs `fn` with a provider, always closing its connections. */
export async function withProvider<T>(ctx: CliContext, fn: (p: CliProvider) => Promise<T>): Promise<T> {
  const p = await openProvider(ctx);
  try {
    return await fn(p);
  } finally {
    await p.close();
  }
}
