/** Proxy credentials kept in memory: the provider's CredentialsStore for tests over in-memory hosts. */
import type { CredentialsStore } from '../../electron/services/credentials/credentials-store.js';
import type { ProxyCredentials } from '../../shared/proxy.js';

export class MemoryCredentialsStore implements CredentialsStore {
  readonly entries = new Map<string, ProxyCredentials>();
  async get(proxy: string): Promise<ProxyCredentials | undefined> {
    return this.entries.get(proxy);
  }
  async set(proxy: string, credentials: ProxyCredentials): Promise<void> {
    this.entries.set(proxy, credentials);
  }
  async delete(proxy: string): Promise<void> {
    this.entries.delete(proxy);
  }
  async names(): Promise<string[]> {
    return [...this.entries.keys()];
  }
}
