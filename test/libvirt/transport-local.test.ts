/**
 * The local transport against the real libvirtd socket (test/env/up.sh), and its failures on
 * sockets that are missing or dead.
 */
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEnv, type TestEnv } from '../support/env.js';
import {
  dialerForHost,
  LocalSocketDialer,
  SocketMissingError,
  SocketRefusedError,
  SshConnectionPool,
} from '../../electron/transport/index.js';
import { authListRoundTrip, closed } from '../support/transport.js';
import { tempDir } from '../support/temp-dir.js';

let env: TestEnv;
let dir: string;

beforeAll(() => {
  env = testEnv();
  dir = tempDir('egress-local-');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('local socket dialer against the real libvirtd', () => {
  it('reaches libvirtd: AUTH_LIST gets a REPLY with serial 1 and status OK', async () => {
    const d = new LocalSocketDialer(env.EGRESS_TEST_SOCKET);
    expect(d.description).toBe(`unix:${env.EGRESS_TEST_SOCKET}`);
    const stream = await d.dial();
    const reply = await authListRoundTrip(stream);
    expect(reply.length).toBeGreaterThanOrEqual(28);
    expect(reply).toMatchObject({ program: 0x20008086, version: 1, procedure: 66, type: 1, serial: 1, status: 0 });
    stream.end();
    await closed(stream);
  });

  it('is what dialerForHost builds for address "local"', async () => {
    const pool = new SshConnectionPool({ env: {} });
    const d = dialerForHost({ name: 'here', address: 'local', socketPath: env.EGRESS_TEST_SOCKET }, { sshPool: pool });
    expect(d).toBeInstanceOf(LocalSocketDialer);
    const stream = await d.dial();
    expect((await authListRoundTrip(stream)).serial).toBe(1);
    stream.destroy();
    await pool.close();
  });

  it('says what to install when the socket does not exist', async () => {
    const missing = join(dir, 'no-such-sock');
    const err = await new LocalSocketDialer(missing).dial().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SocketMissingError);
    expect((err as Error).message).toBe(
      `libvirt's socket ${missing} does not exist: install libvirt-daemon-system and start libvirtd, ` +
        `or set socketPath to a session daemon's $XDG_RUNTIME_DIR/libvirt/libvirt-sock`,
    );
  });

  it('says the daemon is not running when its socket is left behind', async () => {
    // A socket file whose listener is gone (python exits without unlinking it, as a crashed daemon would).
    const stale = join(dir, 'stale-sock');
    const r = spawnSync('python3', [
      '-c',
      'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])',
      stale,
    ]);
    expect(r.status).toBe(0);
    const err = await new LocalSocketDialer(stale).dial().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SocketRefusedError);
    expect((err as Error).message).toContain('the daemon is not running');
  });

  it('honours an aborted signal', async () => {
    const ac = new AbortController();
    ac.abort();
    await expect(new LocalSocketDialer(env.EGRESS_TEST_SOCKET).dial({ signal: ac.signal })).rejects.toMatchObject({
      name: 'AbortError',
    });
    const reason = new Error('shutting down');
    await expect(
      new LocalSocketDialer(env.EGRESS_TEST_SOCKET).dial({ signal: AbortSignal.abort(reason) }),
    ).rejects.toBe(reason);
  });
});
