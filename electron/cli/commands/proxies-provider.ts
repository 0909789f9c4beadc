/** The provider as one CLI command uses it: the config's hosts, the shared cache and credentials, closed at the end. */
import type { ResolvedKVMConfig } from '../../../shared/config.js';
import { type FleetAssembly, assembleFleet } from '../../services/app/fleet-assembly.js';
import type { KvmProvider } from '../../services/provider/kvm/provider.js';
import type { CliContext } from '../context.js';
import { loadKvmConfig } from '../load-config.js';
import { cliSshPool, polkitLine } from '../ssh-pool.js';

export interface CliProvider {
  provider: KvmProvider;
  config: ResolvedKVMConfig;
  /** The composition under the provider (its host connections: `proxies top` asks them for stats). */
  backend: FleetAssembly;
  close: () => Promise<void>;
}

/** The same composition as the app's (services/app/fleet-assembly.ts), with the terminal's passphrase prompt. */
export async function openProvider(ctx: CliContext): Promise<CliProvider> {
  const config = await loadKvmConfig(ctx);
  const backend = assembleFleet({
    config,
    dataDir: ctx.dataDir,
    sshPool: cliSshPool(ctx),
    env: ctx.io.env,
    onConnected: (host, via) => ctx.debug(`${host}: connected through ${via}`),
    onPolkit: (host) => ctx.debug(polkitLine(host)),
  });
  return { provider: backend.provider, config, backend, close: () => backend.close() };
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
