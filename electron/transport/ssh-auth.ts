/**
 * SSH public-key authentication as OpenSSH does it: the agent's keys first, then the identity
 * files, each offered once. An encrypted key's passphrase is asked for only when the server
 * has said it would accept that key (its public half is offered first), so a person is never
 * prompted for a key that would be refused. Wrong passphrases are asked again, up to three
 * times. Passphrases and private keys never reach a message or a log.
 */
import { readFile } from 'node:fs/promises';
import ssh2 from 'ssh2';
import type {
  AnyAuthMethod,
  AuthHandlerMiddleware,
  AuthenticationType,
  BaseAgent,
  IdentityCallback,
  NextAuthHandler,
  ParsedKey,
  PublicKeyEntry,
  SignCallback,
  SigningRequestOptions,
} from 'ssh2';
import { errnoCode } from './errors.js';
import type { IdentitySource } from './ssh-config.js';
import { SshConfigError, type SshAuthAttempt } from './ssh-errors.js';
import { messageOf } from '../../shared/errors.js';

/** What the passphrase prompt is told. */
export interface PassphraseRequest {
  /** `user@host:port` the key is for. */
  endpoint: string;
  /** 1, 2 or 3. */
  attempt: number;
  /** The previous passphrase given for this key was wrong. */
  retry: boolean;
}

/**
 * Asks the person for a key's passphrase. Resolve undefined to skip the key. The answer is
 * used to decrypt the key and then dropped; it is never stored or logged.
 */
export type AskPassphrase = (keyPath: string, request: PassphraseRequest) => Promise<string | undefined>;

/** An identity file, read and classified. */
export interface Identity {
  path: string;
  /** plain: usable as is; encrypted: needs a passphrase; public: only a public key (for an agent-held key). */
  kind: 'plain' | 'encrypted' | 'public';
  /** The private key, for plain keys. */
  privateKey?: ParsedKey;
  /** The public key, when known without decrypting (always for plain and public). */
  publicKey?: ParsedKey | undefined;
  /** The file's text, kept only for decrypting an encrypted key. */
  text?: string;
}

const MAX_PASSPHRASE_TRIES = 3;

/**
 * Reads identity files. Missing files are skipped, except explicitly configured ones (all of
 * them when `required` is `explicit`, or those in the set), whose absence is a configuration
 * error. Unreadable ones are reported as attempts.
 */
export async function readIdentities(
  paths: readonly string[],
  required: IdentitySource | ReadonlySet<string>,
  attempts: SshAuthAttempt[],
): Promise<Identity[]> {
  const out: Identity[] = [];
  for (const path of paths) {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (err) {
      const code = errnoCode(err);
      const mustExist = typeof required === 'string' ? required === 'explicit' : required.has(path);
      if ((code === 'ENOENT' || code === 'ENOTDIR') && !mustExist) continue;
      if (code === 'ENOENT') throw new SshConfigError(`the identityFile ${path} does not exist`, { cause: err });
      attempts.push({ method: 'key', source: path, outcome: 'unreadable', detail: code ?? messageOf(err) });
      continue;
    }
    const parsed = first(ssh2.utils.parseKey(text));
    if (!(parsed instanceof Error)) {
      if (parsed.isPrivateKey()) out.push({ path, kind: 'plain', privateKey: parsed, publicKey: publicOf(parsed) });
      else out.push({ path, kind: 'public', publicKey: parsed });
      continue;
    }
    if (/passphrase/i.test(parsed.message)) {
      const publicKey = (await publicFromPubFile(`${path}.pub`)) ?? publicFromOpenSshHeader(text);
      out.push({ path, kind: 'encrypted', text, ...(publicKey ? { publicKey } : {}) });
      continue;
    }
    attempts.push({ method: 'key', source: path, outcome: 'unreadable', detail: parsed.message });
  }
  return out;
}

/** The parts of a connection attempt that authentication needs. */
export interface AuthContext {
  user: string;
  /** `user@host:port`, for prompts. */
  endpoint: string;
  agentSocket: string | undefined;
  identitiesOnly: boolean;
  identities: readonly Identity[];
  askPassphrase: AskPassphrase | undefined;
  /** Decrypted keys by path, shared across connections so that a reconnect does not ask again. */
  keyCache: Map<string, ParsedKey>;
  /** Runs a person-facing wait without counting it against the connect timeout. */
  suspend: <T>(work: Promise<T>) => Promise<T>;
  /** For tests and custom agents; default ssh2's agent client for `agentSocket`. */
  createAgent?: (socketPath: string) => BaseAgent;
}

/** One connection attempt's authentication: ssh2's authHandler, and what was tried. */
export class AuthSession {
  /** What was tried, in order, with outcomes; the material of an SshAuthError. */
  readonly attempts: SshAuthAttempt[];
  private readonly steps: Array<() => Promise<AnyAuthMethod | undefined>> = [];
  private readonly offered: Buffer[] = [];

  constructor(
    private readonly ctx: AuthContext,
    earlier: SshAuthAttempt[] = [],
  ) {
    this.attempts = earlier;
    if (ctx.agentSocket !== undefined) this.steps.push(() => Promise.resolve(this.agentStep(ctx.agentSocket!)));
    for (const identity of ctx.identities) this.steps.push(() => this.identityStep(identity));
  }

  /** ssh2's `authHandler`: called first with `authsLeft` null, then after each failure. */
  readonly handler: AuthHandlerMiddleware = (
    authsLeft: AuthenticationType[] | null,
    _partial: boolean | null,
    next: NextAuthHandler,
  ): void => {
    const done = next as (method: AnyAuthMethod | false) => void; // ssh2 takes `false` for "no more methods"
    if (authsLeft !== null && !authsLeft.includes('publickey')) {
      done(false);
      return;
    }
    void this.nextMethod().then(
      (method) => done(method ?? false),
      () => done(false),
    );
  };

  private async nextMethod(): Promise<AnyAuthMethod | undefined> {
    for (let step = this.steps.shift(); step; step = this.steps.shift()) {
      const method = await step();
      if (method) return method;
    }
    return undefined;
  }

  private record(attempt: SshAuthAttempt): SshAuthAttempt {
    this.attempts.push(attempt);
    return attempt;
  }

  private agentStep(socketPath: string): AnyAuthMethod {
    const attempt = this.record({ method: 'agent', source: socketPath, outcome: 'rejected' });
    const inner = (this.ctx.createAgent ?? ssh2.createAgent)(socketPath);
    const onlyIdentities = this.ctx.identitiesOnly
      ? this.ctx.identities.flatMap((i) => (i.publicKey ? [i.publicKey.getPublicSSH()] : []))
      : undefined;
    const agent = new ListingAgent(inner, (keys, err) => {
      if (err) {
        attempt.outcome = 'unavailable';
        attempt.detail = messageOf(err);
        return [];
      }
      const usable = onlyIdentities ? keys.filter((k) => onlyIdentities.some((b) => b.equals(k.getPublicSSH()))) : keys;
      if (usable.length === 0) attempt.outcome = 'no-keys';
      attempt.detail = `${usable.length} key${usable.length === 1 ? '' : 's'}${onlyIdentities ? ', IdentitiesOnly' : ''}`;
      this.offered.push(...usable.map((k) => k.getPublicSSH()));
      return usable;
    });
    return { type: 'agent', username: this.ctx.user, agent };
  }

  private async identityStep(identity: Identity): Promise<AnyAuthMethod | undefined> {
    // A key the agent already offered would only use up one of the server's MaxAuthTries.
    const blob = identity.publicKey?.getPublicSSH();
    if (blob && this.offered.some((b) => b.equals(blob))) return undefined;
    if (blob) this.offered.push(blob);
    const username = this.ctx.user;
    if (identity.kind === 'public') return undefined; // only meaningful through the agent
    if (identity.kind === 'plain') {
      this.record({ method: 'key', source: identity.path, outcome: 'rejected' });
      return { type: 'publickey', username, key: identity.privateKey! };
    }
    const attempt = this.record({ method: 'key', source: identity.path, outcome: 'rejected' });
    if (identity.publicKey) {
      // Offer the public half; the passphrase is asked for only when the server takes it.
      return {
        type: 'agent',
        username,
        agent: new LockedKeyAgent(identity.publicKey, () => this.unlock(identity, attempt)),
      };
    }
    // No public half on disk (an old PEM key without its .pub): decrypt first.
    const key = await this.unlock(identity, attempt);
    return key ? { type: 'publickey', username, key } : undefined;
  }

  /** Decrypts an encrypted key, asking for its passphrase up to three times. */
  private async unlock(identity: Identity, attempt: SshAuthAttempt): Promise<ParsedKey | undefined> {
    const cached = this.ctx.keyCache.get(identity.path);
    if (cached) return cached;
    const ask = this.ctx.askPassphrase;
    if (!ask) {
      attempt.outcome = 'no-passphrase-prompt';
      return undefined;
    }
    for (let n = 1; n <= MAX_PASSPHRASE_TRIES; n++) {
      let passphrase: string | undefined;
      try {
        passphrase = await this.ctx.suspend(
          ask(identity.path, { endpoint: this.ctx.endpoint, attempt: n, retry: n > 1 }),
        );
      } catch {
        passphrase = undefined; // a failed or cancelled prompt skips the key, like an empty answer to OpenSSH's
      }
      if (passphrase === undefined) {
        attempt.outcome = 'skipped';
        return undefined;
      }
      const key = first(ssh2.utils.parseKey(identity.text!, passphrase));
      if (!(key instanceof Error) && key.isPrivateKey()) {
        this.ctx.keyCache.set(identity.path, key);
        attempt.outcome = 'rejected'; // from here on, only the server can refuse it
        attempt.detail = undefined;
        return key;
      }
      attempt.outcome = 'wrong-passphrase';
      attempt.detail = `${n} attempt${n === 1 ? '' : 's'}`;
    }
    return undefined;
  }
}

/** Wraps an agent to see (and filter) its key list; an unreachable agent counts as an empty one. */
class ListingAgent extends ssh2.BaseAgent<ParsedKey> {
  constructor(
    private readonly inner: BaseAgent,
    private readonly onKeys: (keys: ParsedKey[], err?: Error) => ParsedKey[],
  ) {
    super();
  }

  getIdentities(cb: IdentityCallback<ParsedKey>): void {
    this.inner.getIdentities((err, keys) => {
      if (err) return cb(null, this.onKeys([], err));
      const parsed = (keys ?? [])
        .map((k) => first(ssh2.utils.parseKey(unwrap(k))))
        .filter((k): k is ParsedKey => !(k instanceof Error));
      cb(null, this.onKeys(parsed));
    });
  }

  sign(pubKey: ParsedKey, data: Buffer, options: SigningRequestOptions, cb?: SignCallback): void;
  sign(pubKey: ParsedKey, data: Buffer, cb: SignCallback): void;
  sign(pubKey: ParsedKey, data: Buffer, a: SigningRequestOptions | SignCallback, b?: SignCallback): void {
    const options = typeof a === 'function' ? {} : a;
    const cb = typeof a === 'function' ? a : b;
    this.inner.sign(pubKey, data, options, cb);
  }
}

/** One encrypted identity file presented as an agent, so that it is unlocked only when the server takes it. */
class LockedKeyAgent extends ssh2.BaseAgent<ParsedKey> {
  constructor(
    private readonly publicKey: ParsedKey,
    private readonly unlock: () => Promise<ParsedKey | undefined>,
  ) {
    super();
  }

  getIdentities(cb: IdentityCallback<ParsedKey>): void {
    cb(null, [this.publicKey]);
  }

  sign(pubKey: ParsedKey, data: Buffer, options: SigningRequestOptions, cb?: SignCallback): void;
  sign(pubKey: ParsedKey, data: Buffer, cb: SignCallback): void;
  sign(_pubKey: ParsedKey, data: Buffer, a: SigningRequestOptions | SignCallback, b?: SignCallback): void {
    const options = typeof a === 'function' ? {} : a;
    const cb = (typeof a === 'function' ? a : b) ?? (() => undefined);
    this.unlock().then(
      (key) => {
        if (!key) return cb(new Error('key not unlocked'));
        const signature: Buffer | Error = key.sign(data, options.hash);
        if (signature instanceof Error) cb(signature);
        else cb(null, signature);
      },
      (err: unknown) => cb(err instanceof Error ? err : new Error(String(err))),
    );
  }
}

/** An agent's key list entry, whichever of ssh2's shapes it comes in. */
function unwrap(entry: string | Buffer | ParsedKey | PublicKeyEntry): string | Buffer | ParsedKey {
  if (typeof entry === 'string' || Buffer.isBuffer(entry) || !('pubKey' in entry)) return entry;
  const inner = entry.pubKey;
  return 'pubKey' in inner ? inner.pubKey : inner;
}

function first(parsed: ParsedKey | ParsedKey[] | Error): ParsedKey | Error {
  // ssh2 returns an array for OpenSSH-format files (which hold one key in practice).
  if (Array.isArray(parsed)) return parsed[0] ?? new Error('the key file holds no key');
  return parsed;
}

function publicOf(key: ParsedKey): ParsedKey | undefined {
  const pub = first(ssh2.utils.parseKey(`${key.type} ${key.getPublicSSH().toString('base64')}`));
  return pub instanceof Error ? undefined : pub;
}

async function publicFromPubFile(path: string): Promise<ParsedKey | undefined> {
  try {
    const pub = first(ssh2.utils.parseKey(await readFile(path, 'utf8')));
    return pub instanceof Error || pub.isPrivateKey() ? undefined : pub;
  } catch {
    return undefined;
  }
}

/** The public key stored in clear in an "openssh-key-v1" private key file, even when the private part is encrypted. */
export function publicFromOpenSshHeader(text: string): ParsedKey | undefined {
  const m = /-----BEGIN OPENSSH PRIVATE KEY-----([\s\S]*?)-----END OPENSSH PRIVATE KEY-----/.exec(text);
  if (!m) return undefined;
  const buf = Buffer.from(m[1]!.replace(/\s+/g, ''), 'base64');
  const magic = 'openssh-key-v1\0';
  if (buf.toString('latin1', 0, magic.length) !== magic) return undefined;
  let off = magic.length;
  const str = (): Buffer | undefined => {
    if (off + 4 > buf.length) return undefined;
    const len = buf.readUInt32BE(off);
    if (off + 4 + len > buf.length) return undefined;
    const out = buf.subarray(off + 4, off + 4 + len);
    off += 4 + len;
    return out;
  };
  if (!str() || !str() || !str()) return undefined; // cipher name, kdf name, kdf options
  if (off + 4 > buf.length || buf.readUInt32BE(off) < 1) return undefined;
  off += 4;
  const blob = str();
  if (!blob || blob.length < 4) return undefined;
  const typeLen = blob.readUInt32BE(0);
  const type = blob.toString('latin1', 4, 4 + typeLen);
  const pub = first(ssh2.utils.parseKey(`${type} ${blob.toString('base64')}`));
  return pub instanceof Error ? undefined : pub;
}
