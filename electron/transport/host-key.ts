/**
 * Host-key verification for the SSH transport: trust on first use, decided by the person.
 *
 * An unknown key fails the connection with {@link HostKeyUnknownError}, carrying what the app
 * shows (fingerprint) and what it needs to record the key once the person confirms
 * ({@link trustHostKey}); the retry then succeeds. A changed or revoked key fails with
 * {@link HostKeyMismatchError} and nothing is sent to that server: verification happens in
 * the key exchange, before authentication.
 */
import { TransportError } from './errors.js';
import { SshConfigError } from './ssh-errors.js';
import { appendKnownHost, fingerprintSha256, KnownHosts, knownHostsName, type KnownHostLine } from './known-hosts.js';

/** Where host keys are read from and written to, for one host. */
export interface HostKeyFiles {
  /** The name the key is recorded under: HostKeyAlias, else HostName. */
  hostKeyName: string;
  port: number;
  /** The user's files (UserKnownHostsFile); the first one receives trusted keys. */
  userFiles: readonly string[];
  /** Read-only system files (GlobalKnownHostsFile). */
  globalFiles: readonly string[];
  /** Write new entries hashed (HashKnownHosts). */
  hash: boolean;
}

/** The server presented a key no known_hosts line records for it. Ask the person, then {@link trustHostKey}. */
export class HostKeyUnknownError extends TransportError {
  readonly code = 'SSH_HOST_KEY_UNKNOWN';
  /** The SHA256 fingerprint, as `ssh-keygen -lf` prints it. */
  readonly fingerprint: string;

  constructor(
    /** The name the key would be recorded under. */
    readonly host: string,
    readonly port: number,
    readonly keyType: string,
    /** The public key blob as the server sent it (public data, safe to show and store). */
    readonly key: Buffer,
    /** The file {@link trustHostKey} appends to. */
    readonly knownHostsFile: string,
    /** Whether {@link trustHostKey} writes the entry hashed. */
    readonly hashKnownHosts: boolean,
  ) {
    const fingerprint = fingerprintSha256(key);
    super(
      `the authenticity of host ${knownHostsName(host, port)} can't be established: it presents the ${keyType} key ` +
        `${fingerprint}, which is not in your known_hosts. Compare it with the host's own (ssh-keygen -lf ` +
        `/etc/ssh/ssh_host_*_key.pub, run there), then trust it to record it in ${knownHostsFile}`,
    );
    this.fingerprint = fingerprint;
  }
}

/** The line a presented key conflicts with. */
export interface HostKeyExpectation {
  file: string;
  line: number;
  keyType: string;
  fingerprint: string;
}

/** The server presented a key other than the one recorded (or a revoked one). The connection was not made. */
export class HostKeyMismatchError extends TransportError {
  readonly code = 'SSH_HOST_KEY_MISMATCH';
  readonly fingerprint: string;

  constructor(
    readonly host: string,
    readonly port: number,
    readonly keyType: string,
    key: Buffer,
    /** The known_hosts line that disagrees (or the `@revoked` line). */
    readonly expected: HostKeyExpectation,
    /** The presented key is explicitly revoked. */
    readonly revoked: boolean,
  ) {
    const fingerprint = fingerprintSha256(key);
    const name = knownHostsName(host, port);
    super(
      revoked
        ? `the ${keyType} key ${fingerprint} presented by ${name} is marked @revoked in ${expected.file}:${expected.line}: not connecting`
        : `the host key of ${name} has CHANGED: it presents the ${keyType} key ${fingerprint}, but ${expected.file}:${expected.line} ` +
            `records the ${expected.keyType} key ${expected.fingerprint}. Someone may be intercepting the connection, or the ` +
            `host was reinstalled. Not connecting. If the change is expected, remove the old entry ` +
            `(ssh-keygen -f "${expected.file}" -R "${name}") and connect again`,
    );
    this.fingerprint = fingerprint;
  }
}

/** The outcome of {@link verifyHostKey}: nothing to report, or the error to fail with. */
export type HostKeyVerdict = { ok: true } | { ok: false; error: HostKeyUnknownError | HostKeyMismatchError };

/** Checks a presented key against the host's known_hosts files. */
export function verifyHostKey(known: KnownHosts, files: HostKeyFiles, keyType: string, key: Buffer): HostKeyVerdict {
  const found = known.lookup(files.hostKeyName, files.port, keyType, key);
  if (found.status === 'trusted') return { ok: true };
  if (found.status === 'mismatch') {
    return {
      ok: false,
      error: new HostKeyMismatchError(
        files.hostKeyName,
        files.port,
        keyType,
        key,
        expectation(found.line!),
        found.revoked,
      ),
    };
  }
  return {
    ok: false,
    error: new HostKeyUnknownError(files.hostKeyName, files.port, keyType, key, trustFile(files), files.hash),
  };
}

/** Reads the host's known_hosts files (missing ones count as empty). */
export function loadHostKeys(files: HostKeyFiles): Promise<KnownHosts> {
  return KnownHosts.load([...files.userFiles, ...files.globalFiles]);
}

/**
 * Records the key of a {@link HostKeyUnknownError} after the person confirmed it, unless the
 * file already trusts it (a second confirmation in another window). Returns the line written,
 * or undefined when nothing needed writing.
 */
export async function trustHostKey(error: HostKeyUnknownError): Promise<string | undefined> {
  const current = await KnownHosts.load([error.knownHostsFile]);
  if (current.check(error.host, error.port, error.keyType, error.key) === 'trusted') return undefined;
  return appendKnownHost(error.knownHostsFile, error.host, error.port, error.keyType, error.key, {
    hash: error.hashKnownHosts,
  });
}

function trustFile(files: HostKeyFiles): string {
  const first = files.userFiles[0];
  // UserKnownHostsFile none: there is nowhere OpenSSH would write either; say so when trusting.
  if (first === undefined) {
    throw new SshConfigError(
      `${knownHostsName(files.hostKeyName, files.port)} presents an unknown host key and ssh_config sets UserKnownHostsFile none, so it cannot be trusted`,
    );
  }
  return first;
}

function expectation(line: KnownHostLine): HostKeyExpectation {
  return { file: line.file, line: line.line, keyType: line.keyType, fingerprint: fingerprintSha256(line.key) };
}
