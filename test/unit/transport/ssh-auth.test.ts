import { rmSync, writeFileSync } from 'node:fs';

import { join } from 'node:path';
import ssh2 from 'ssh2';
import type { AnyAuthMethod, BaseAgent, IdentityCallback, ParsedKey, SignCallback } from 'ssh2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthSession,
  publicFromOpenSshHeader,
  readIdentities,
  type AskPassphrase,
  type AuthContext,
  type Identity,
} from '../../../electron/transport/ssh-auth.js';
import { SshConfigError, type SshAuthAttempt } from '../../../electron/transport/ssh-errors.js';
import { tempDir } from '../../support/temp-dir.js';

let dir: string;
const plain = ssh2.utils.generateKeyPairSync('ed25519', { comment: 'plain' });
const locked = ssh2.utils.generateKeyPairSync('ed25519', {
  passphrase: 'open sesame',
  cipher: 'aes256-ctr',
  rounds: 2,
  comment: 'locked',
});
const other = ssh2.utils.generateKeyPairSync('ed25519', { comment: 'other' });
const pub = (text: string): ParsedKey => ssh2.utils.parseKey(text) as ParsedKey;

beforeAll(() => {
  dir = tempDir('egress-auth-');
  writeFileSync(join(dir, 'plain'), plain.private);
  writeFileSync(join(dir, 'locked'), locked.private);
  writeFileSync(join(dir, 'locked-with-pub'), locked.private);
  writeFileSync(join(dir, 'locked-with-pub.pub'), other.public); // a .pub wins over the header, as for OpenSSH
  writeFileSync(join(dir, 'agent-only.pub'), plain.public);
  writeFileSync(join(dir, 'garbage'), 'not a key\n');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('readIdentities', () => {
  it('classifies key files and skips missing default ones', async () => {
    const attempts: SshAuthAttempt[] = [];
    const ids = await readIdentities(
      ['plain', 'locked', 'locked-with-pub', 'agent-only.pub', 'garbage', 'missing'].map((f) => join(dir, f)),
      'default',
      attempts,
    );
    expect(ids.map((i) => [i.path.slice(dir.length + 1), i.kind])).toEqual([
      ['plain', 'plain'],
      ['locked', 'encrypted'],
      ['locked-with-pub', 'encrypted'],
      ['agent-only.pub', 'public'],
    ]);
    expect(ids[1]?.publicKey?.getPublicSSH().equals(pub(locked.public).getPublicSSH())).toBe(true);
    expect(ids[2]?.publicKey?.getPublicSSH().equals(pub(other.public).getPublicSSH())).toBe(true);
    expect(attempts).toEqual([
      { method: 'key', source: join(dir, 'garbage'), outcome: 'unreadable', detail: expect.any(String) },
    ]);
  });

  it('calls a missing explicit identityFile a configuration error', async () => {
    await expect(readIdentities([join(dir, 'missing')], 'explicit', [])).rejects.toThrow(SshConfigError);
  });

  it('reads the public key in clear from an encrypted OpenSSH key', () => {
    expect(publicFromOpenSshHeader(locked.private)?.getPublicSSH().toString('base64')).toBe(
      locked.public.split(' ')[1],
    );
    expect(
      publicFromOpenSshHeader('-----BEGIN RSA PRIVATE KEY-----\nxx\n-----END RSA PRIVATE KEY-----'),
    ).toBeUndefined();
  });
});

class FakeAgent extends ssh2.BaseAgent<ParsedKey> {
  constructor(private readonly keys: ParsedKey[]) {
    super();
  }
  getIdentities(cb: IdentityCallback<ParsedKey>): void {
    cb(null, this.keys);
  }
  sign(_k: ParsedKey, _d: Buffer, _o: unknown, cb?: SignCallback): void {
    cb?.(new Error('not in this test'));
  }
}

async function ids(...names: string[]): Promise<Identity[]> {
  return readIdentities(
    names.map((n) => join(dir, n)),
    'ssh_config',
    [],
  );
}

function session(identities: Identity[], extra: Partial<AuthContext> = {}): AuthSession {
  return new AuthSession({
    user: 'ann',
    endpoint: 'ann@h:22',
    agentSocket: undefined,
    identitiesOnly: false,
    identities,
    askPassphrase: undefined,
    keyCache: new Map(),
    suspend: (p) => p,
    ...extra,
  });
}

/** Asks the handler for its next method, as ssh2 does after each failure. */
function next(s: AuthSession, authsLeft: string[] | null = ['publickey']): Promise<AnyAuthMethod | false> {
  return new Promise((resolve) => s.handler(authsLeft as never, false, resolve as never));
}

async function agentKeys(method: AnyAuthMethod | false): Promise<ParsedKey[]> {
  if (method === false || method.type !== 'agent' || typeof method.agent === 'string')
    throw new Error('not an agent method');
  const agent: BaseAgent = method.agent;
  return new Promise((resolve, reject) =>
    agent.getIdentities((err, keys) => (err ? reject(err) : resolve((keys ?? []) as ParsedKey[]))),
  );
}

describe('AuthSession', () => {
  it('offers the agent first, then each file once, and stops when the server takes no keys', async () => {
    const s = session(await ids('plain', 'locked'), {
      agentSocket: '/agent',
      createAgent: () => new FakeAgent([pub(other.public)]),
    });
    const agent = await next(s, null);
    expect(agent).toMatchObject({ type: 'agent', username: 'ann' });
    expect((await agentKeys(agent)).map((k) => k.comment)).toEqual(['other']);
    expect(await next(s)).toMatchObject({ type: 'publickey', username: 'ann' });
    const lockedMethod = await next(s);
    // The encrypted key's public half is offered without asking for anything.
    expect((await agentKeys(lockedMethod))[0]?.getPublicSSH().equals(pub(locked.public).getPublicSSH())).toBe(true);
    expect(await next(s)).toBe(false);
    expect(s.attempts.map((a) => [a.method, a.outcome])).toEqual([
      ['agent', 'rejected'],
      ['key', 'rejected'],
      ['key', 'rejected'],
    ]);
    expect(await next(session(await ids('plain')), ['password'])).toBe(false);
  });

  it('does not offer a file whose key the agent already offered', async () => {
    const s = session(await ids('plain'), {
      agentSocket: '/agent',
      createAgent: () => new FakeAgent([pub(plain.public)]),
    });
    await agentKeys(await next(s, null));
    expect(await next(s)).toBe(false);
  });

  it('offers only the agent keys that match identity files under IdentitiesOnly', async () => {
    const s = session(await ids('agent-only.pub'), {
      agentSocket: '/agent',
      identitiesOnly: true,
      createAgent: () => new FakeAgent([pub(other.public), pub(plain.public)]),
    });
    expect((await agentKeys(await next(s, null))).map((k) => k.comment)).toEqual(['plain']);
    expect(s.attempts[0]?.detail).toBe('1 key, IdentitiesOnly');
  });

  it('asks for a passphrase only when asked to sign, up to three times', async () => {
    const asked: number[] = [];
    const ask: AskPassphrase = (_path, r) => {
      asked.push(r.attempt);
      return Promise.resolve(r.attempt < 3 ? 'wrong' : 'open sesame');
    };
    const s = session(await ids('locked'), { askPassphrase: ask });
    const method = await next(s, null);
    expect(asked).toEqual([]);
    if (method === false || method.type !== 'agent' || typeof method.agent === 'string')
      throw new Error('expected an agent method');
    const signature = await new Promise<Buffer | undefined>((resolve, reject) =>
      (method.agent as BaseAgent).sign(pub(locked.public), Buffer.from('data'), {}, (err, sig) =>
        err ? reject(err) : resolve(sig),
      ),
    );
    expect(asked).toEqual([1, 2, 3]);
    expect(pub(locked.public).verify(Buffer.from('data'), signature!)).toBe(true);
  });
});
