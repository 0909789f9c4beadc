/**
 * Proxy credentials, kept on the workstation only: `<dataDir>/credentials.json`, mode
 * 0600, replaced atomically. They never go into libvirt metadata (which any reader of
 * the host's libvirt can see); the guest gets them through its seed.
 */
import { join } from 'node:path';
import { z } from 'zod';
import { type ProxyCredentials, ProxyCredentialsSchema } from '../../../shared/proxy.js';
import { ParsedFileCache } from './parsed-file-cache.js';
import { PrivateJsonFile } from './private-json-file.js';

const FileSchema = z.object({
  version: z.literal(1),
  proxies: z.record(z.string(), ProxyCredentialsSchema),
});

/** A missing file: no credentials yet. */
const emptyFile = (): z.infer<typeof FileSchema> => ({ version: 1, proxies: {} });

/** What the provider needs of a credentials store (the tests keep one in memory: test/support/memory-credentials.ts). */
export interface CredentialsStore {
  get(proxy: string): Promise<ProxyCredentials | undefined>;
  set(proxy: string, credentials: ProxyCredentials): Promise<void>;
  delete(proxy: string): Promise<void>;
  /** Every proxy name with stored credentials. */
  names(): Promise<string[]>;
}

/** The credentials file of a data directory. */
export function credentialsPath(dataDir: string): string {
  return join(dataDir, 'credentials.json');
}

/** A store in a JSON file; read-modify-write cycles of one process run one at a time. */
export class FileCredentialsStore implements CredentialsStore {
  private readonly writer: PrivateJsonFile<z.infer<typeof FileSchema>, ProxyCredentials>;
  private readonly cache: ParsedFileCache<z.infer<typeof FileSchema>>;

  constructor(readonly file: string) {
    this.cache = new ParsedFileCache(file, (text) => this.parse(text), emptyFile);
    this.writer = new PrivateJsonFile(file, () => this.cache.readFresh(), {
      get: (d) => d.proxies,
      set: (d, proxies) => (d.proxies = proxies),
    });
  }

  async get(proxy: string): Promise<ProxyCredentials | undefined> {
    return (await this.read()).proxies[proxy];
  }

  async names(): Promise<string[]> {
    return Object.keys((await this.read()).proxies);
  }

  set(proxy: string, credentials: ProxyCredentials): Promise<void> {
    const checked = ProxyCredentialsSchema.parse(credentials);
    return this.update((all) => all.set(proxy, checked));
  }

  delete(proxy: string): Promise<void> {
    return this.update((all) => all.delete(proxy));
  }

  private update(change: (all: Map<string, ProxyCredentials>) => void): Promise<void> {
    return this.writer.update(change);
  }

  /** The file as of now: parsed once per change (parsed-file-cache.ts), shared by every reader until the next. */
  private read(): Promise<z.infer<typeof FileSchema>> {
    return this.cache.read();
  }

  private parse(text: string): z.infer<typeof FileSchema> {
    const parsed = FileSchema.safeParse(JSON.parse(text));
    if (!parsed.success)
      throw new Error(
        `${this.file} is not a valid credentials file: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
      );
    return parsed.data;
  }
}
