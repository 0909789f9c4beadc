/**
 * The gateway's clients, kept on the workstation only: `<dataDir>/gateway-clients.json`,
 * mode 0600, replaced atomically, as proxy credentials are (credentials-store.ts). The
 * passwords are kept as they are, not hashed: the Gateway view's Copy URL and the client
 * settings exports hand them out again, as they do a proxy's.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { z } from 'zod';
import { type GatewayClient, GatewayClientSchema } from '../../../shared/gateway.js';
import { ParsedFileCache } from '../credentials/parsed-file-cache.js';
import { PrivateJsonFile } from '../credentials/private-json-file.js';

const FileSchema = z.object({
  version: z.literal(1),
  clients: z.record(z.string(), GatewayClientSchema),
});
type ClientsFile = z.infer<typeof FileSchema>;

const emptyFile = (): ClientsFile => ({ version: 1, clients: {} });

/** The gateway clients file of a data directory. */
export function gatewayClientsPath(dataDir: string): string {
  return join(dataDir, 'gateway-clients.json');
}

/** A new client password: 24 random bytes, URL-safe (nothing to escape in a proxy URL). */
export function newGatewayPassword(): string {
  return randomBytes(24).toString('base64url');
}

/** Refused: a bad name, password or allow-list (saying which field), a name in use, or none of that name to remove. */
export class GatewayClientError extends Error {
  override readonly name = 'GatewayClientError';
}

export class GatewayClientsStore {
  private readonly writer: PrivateJsonFile<ClientsFile, GatewayClient>;
  private readonly cache: ParsedFileCache<ClientsFile>;

  constructor(readonly file: string) {
    this.cache = new ParsedFileCache(file, (text) => this.parse(text), emptyFile);
    this.writer = new PrivateJsonFile(file, () => this.cache.readFresh(), {
      get: (d) => d.clients,
      set: (d, clients) => (d.clients = clients),
    });
  }

  /** Every client, by name. */
  async list(): Promise<GatewayClient[]> {
    return Object.values((await this.cache.read()).clients);
  }

  async get(name: string): Promise<GatewayClient | undefined> {
    return (await this.cache.read()).clients[name];
  }

  /**
   * Adds a client (its password generated when not given); refuses a name in use. A name
   * that is another's followed by `-` is fine: the user name's client is the longest one it
   * starts with, and what follows a client's name can only be parts (no part is a word of
   * a client's name: gateway-user.ts refuses those).
   */
  async add(client: Omit<GatewayClient, 'password'> & { password?: string | undefined }): Promise<GatewayClient> {
    const parsed = GatewayClientSchema.safeParse({ ...client, password: client.password ?? newGatewayPassword() });
    if (!parsed.success)
      throw new GatewayClientError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
    const checked = parsed.data;
    await this.writer.update((all) => {
      if (all.has(checked.name)) throw new GatewayClientError(`a gateway client called "${checked.name}" exists`);
      all.set(checked.name, checked);
    });
    return checked;
  }

  async remove(name: string): Promise<void> {
    await this.writer.update((all) => {
      if (!all.delete(name)) throw new GatewayClientError(`no gateway client is called "${name}"`);
    });
  }

  private parse(text: string): ClientsFile {
    const parsed = FileSchema.safeParse(JSON.parse(text));
    if (!parsed.success)
      throw new Error(
        `${this.file} is not a valid gateway clients file: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
      );
    return parsed.data;
  }
}
