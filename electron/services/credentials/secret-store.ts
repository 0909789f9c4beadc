/**
 * Secrets the app remembers for the person (SSH key passphrases): a small JSON file in the
 * data directory, mode 0600, replaced atomically. The CLI and serve mode keep the values
 * as they are in `<dataDir>/secrets.json` (readable only by the user, and they say so);
 * the Electron shell passes a codec that encrypts each value with the desktop keyring
 * (electron/shell/safe-secret-store.ts), in a file of its own.
 *
 * A file that cannot be read as a secrets file is never overwritten: every call fails with
 * a {@link SecretStoreCorruptError} naming it, so nothing in it is lost by a later write.
 * Values never reach a message or a log; only keys (e.g. a key file's path) do.
 */
import { join } from 'node:path';
import { z } from 'zod';
import { ParsedFileCache } from './parsed-file-cache.js';
import { PrivateJsonFile } from './private-json-file.js';
import { messageOf } from '../../../shared/errors.js';

/** Whether the store can keep secrets now, and if not, why (shown beside "remember"). */
export type SecretStoreAvailability = { available: true } | { available: false; reason: string };

/** Where remembered secrets go; injected so that each front end picks its own. */
export interface SecretStore {
  /** For the person: where and how values are kept, e.g. "in /home/ann/.config/egress-desk/secrets.json, readable only by you". */
  readonly description: string;
  availability(): SecretStoreAvailability;
  get(key: string): Promise<string | undefined>;
  /** Throws {@link SecretStoreUnavailableError} when {@link availability} says no. */
  set(key: string, value: string): Promise<void>;
  delete(key: string): Promise<void>;
  /** Every key held (never the values). */
  keys(): Promise<string[]>;
}

/**
 * How values are written: `plain` as given, or through an encrypting codec. Either
 * direction may answer with a promise (Electron's safeStorage only encrypts
 * asynchronously without deprecated calls); a throw or a rejection means the value was
 * not written, or cannot be read.
 */
export interface SecretCodec {
  /** Recorded in the file, so that a file written one way is never read another. */
  encoding: string;
  /** The value as stored in the file. */
  encode(value: string): string | Promise<string>;
  /** The value back from what {@link encode} stored. */
  decode(stored: string): string | Promise<string>;
}

/** The store cannot keep secrets here (no keyring): nothing was stored. */
export class SecretStoreUnavailableError extends Error {
  override readonly name = 'SecretStoreUnavailableError';
}

/** The secrets file exists but is not one (or was written with another encoding): it is left untouched. */
export class SecretStoreCorruptError extends Error {
  override readonly name = 'SecretStoreCorruptError';
}

const FileSchema = z.strictObject({
  version: z.literal(1),
  encoding: z.string().min(1),
  secrets: z.record(z.string(), z.string()),
});
type SecretsFile = z.infer<typeof FileSchema>;

/** The plain secrets file of a data directory (CLI and serve mode). */
export function secretsPath(dataDir: string): string {
  return join(dataDir, 'secrets.json');
}

/** The desktop app's encrypted secrets file (electron/shell/safe-secret-store.ts writes it). */
export function safeSecretsPath(dataDir: string): string {
  return join(dataDir, 'secrets.safe.json');
}

/** The encoding the desktop app's file records: values encrypted by Electron safeStorage, base64. */
export const SAFE_STORAGE_ENCODING = 'electron-safe-storage';

/** The key under which a key file's passphrase is remembered. */
export function passphraseKey(keyFile: string): string {
  return `ssh-passphrase:${keyFile}`;
}

const PLAIN: SecretCodec = { encoding: 'plain', encode: (v) => v, decode: (v) => v };

export interface FileSecretStoreOptions {
  codec?: SecretCodec;
  /** Default: "in <file>, readable only by you". */
  description?: string;
  /** Default: always available. */
  availability?: () => SecretStoreAvailability;
}

/** A store in one JSON file; read-modify-write cycles of one process run one at a time. */
export class FileSecretStore implements SecretStore {
  readonly description: string;
  private readonly codec: SecretCodec;
  private readonly writer: PrivateJsonFile<SecretsFile, string>;
  private readonly cache: ParsedFileCache<SecretsFile>;
  /** The last set or delete: each waits for the one before, see {@link inOrder}. */
  private last: Promise<unknown> = Promise.resolve();

  constructor(
    readonly file: string,
    private readonly options: FileSecretStoreOptions = {},
  ) {
    this.codec = options.codec ?? PLAIN;
    this.description = options.description ?? `in ${file}, readable only by you`;
    this.cache = new ParsedFileCache(
      file,
      (text) => this.parse(text),
      () => this.empty(),
    );
    this.writer = new PrivateJsonFile(file, () => this.cache.readFresh(), {
      get: (d) => d.secrets,
      set: (d, secrets) => (d.secrets = secrets),
    });
  }

  availability(): SecretStoreAvailability {
    return this.options.availability?.() ?? { available: true };
  }

  async get(key: string): Promise<string | undefined> {
    const stored = (await this.read()).secrets[key];
    if (stored === undefined) return undefined;
    try {
      // Awaited here, so that a codec's rejection is reported like its throw.
      return await this.codec.decode(stored);
    } catch (err) {
      throw new SecretStoreCorruptError(
        `the remembered value for ${key} in ${this.file} cannot be decrypted (${messageOf(err)}): enter it again`,
      );
    }
  }

  set(key: string, value: string): Promise<void> {
    const availability = this.availability();
    if (!availability.available)
      return Promise.reject(new SecretStoreUnavailableError(`not remembered: ${availability.reason}`));
    // Encoding starts now; the write waits its turn. A codec that fails writes nothing.
    const encoded = (async () => this.codec.encode(value))();
    encoded.catch(() => undefined); // reported by the job below, not as an unhandled rejection meanwhile
    return this.inOrder(async () => {
      const stored = await encoded;
      await this.update((all) => all.set(key, stored));
    });
  }

  delete(key: string): Promise<void> {
    return this.inOrder(() => this.update((all) => all.delete(key)));
  }

  async keys(): Promise<string[]> {
    return Object.keys((await this.read()).secrets);
  }

  private update(change: (all: Map<string, string>) => void): Promise<void> {
    return this.writer.update(change);
  }

  /**
   * Runs `job` after the previous set or delete has finished. An asynchronous codec would
   * otherwise let a `delete(k)` called after `set(k, v)` reach the file first and leave
   * `k` set: changes land in the order they were asked for, as with a synchronous codec.
   */
  private inOrder(job: () => Promise<void>): Promise<void> {
    const run = this.last.then(job);
    this.last = run.catch(() => undefined);
    return run;
  }

  /** The file as of now: parsed once per change (parsed-file-cache.ts), shared by every reader until the next. */
  private read(): Promise<SecretsFile> {
    return this.cache.read();
  }

  private empty(): SecretsFile {
    return { version: 1, encoding: this.codec.encoding, secrets: {} };
  }

  private parse(text: string): SecretsFile {
    const fix = `It was left as it is; move it away to start afresh (the passphrases in it will be asked again).`;
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (err) {
      throw new SecretStoreCorruptError(`${this.file} is not a valid secrets file: ${messageOf(err)}. ${fix}`);
    }
    const parsed = FileSchema.safeParse(raw);
    if (!parsed.success) {
      throw new SecretStoreCorruptError(
        `${this.file} is not a valid secrets file: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'file'}: ${i.message}`).join('; ')}. ${fix}`,
      );
    }
    if (parsed.data.encoding !== this.codec.encoding) {
      throw new SecretStoreCorruptError(
        `${this.file} holds secrets encoded as ${parsed.data.encoding}, not ${this.codec.encoding}: it was written by another front end. ${fix}`,
      );
    }
    return parsed.data;
  }
}
