/**
 * A lost connection in the app (the daemon restarted, the network dropped): the host goes
 * to "reconnecting" and back to "connected" by itself, with backoff, over a scripted
 * daemon that is away for a while. The CLI's connections (no `reconnect`) reopen on next use.
 */
import type { Duplex } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { HostStatus } from '../../../shared/hosts.js';
import { HostConnections } from '../../../electron/services/hosts/host-connections.js';
import { SocketMissingError, SshConnectionPool } from '../../../electron/transport/index.js';
import { duplexPair } from '../libvirt/support/duplex-pair.js';
import { FakeDaemon } from '../libvirt/support/fake-daemon.js';
import { waitFor } from '../../support/wait.js';
import { sampleHost } from '../../support/host-samples.js';

const local = sampleHost();

/** A daemon that can go away (every open connection ends) and refuse dials until it is back. */
function restartableDaemon() {
  const ends: Duplex[] = [];
  const state = { up: true, dials: 0 };
  return {
    state,
    dialer: () => ({
      description: 'unix:/run/libvirt/libvirt-sock',
      dial: () => {
        state.dials++;
        if (!state.up) return Promise.reject(new SocketMissingError('/run/libvirt/libvirt-sock'));
        const pair = duplexPair();
        new FakeDaemon(pair.daemon).handshake();
        ends.push(pair.daemon);
        return Promise.resolve(pair.client);
      },
    }),
    stop: () => {
      state.up = false;
      for (const end of ends.splice(0)) end.destroy();
    },
  };
}

describe('HostConnections: a connection lost while the app runs', () => {
  it('goes to reconnecting with the reason and the next attempt, retries with backoff, and is connected again by itself', async () => {
    const daemon = restartableDaemon();
    const connections = new HostConnections({
      hosts: [local],
      sshPool: new SshConnectionPool({ env: {} }),
      dialer: daemon.dialer,
      reconnect: { firstDelayMs: 20, maxDelayMs: 80 },
    });
    const seen: HostStatus[] = [];
    connections.on('status', (s) => seen.push(s));
    await connections.client('desk');
    expect(connections.status('desk').state).toBe('connected');

    daemon.stop();
    await waitFor(
      'reconnecting',
      2_000,
      () => (connections.status('desk').state === 'reconnecting' ? true : undefined),
      5,
    );
    expect(connections.status('desk').message).toMatch(/^connection lost: .*; reconnecting in 20 ms \(attempt 1\)$/);
    await waitFor('three failed attempts', 3_000, () => (daemon.state.dials >= 4 ? true : undefined), 5);
    const retries = seen
      .filter((s) => s.state === 'reconnecting' && /reconnecting in/.test(s.message ?? ''))
      .map((s) => /in (\d+) ms/.exec(s.message ?? '')?.[1]);
    expect(retries.slice(0, 4)).toEqual(['20', '40', '80', '80']);
    // The failures in between are not shown as errors: the host is reconnecting, and says why.
    expect(seen.filter((s) => s.state === 'error')).toEqual([]);
    expect(seen.at(-1)!.message).toMatch(/no libvirt socket|does not exist|socket/i);

    daemon.state.up = true;
    await waitFor(
      'connected again',
      3_000,
      () => (connections.status('desk').state === 'connected' ? true : undefined),
      5,
    );
    const dials = daemon.state.dials;
    await new Promise((r) => setTimeout(r, 200));
    expect(daemon.state.dials).toBe(dials); // no further attempts once connected
    await connections.close();
  });

  it('stops trying when the app closes; without reconnect (the CLI) a lost connection is reopened on next use only', async () => {
    const daemon = restartableDaemon();
    const app = new HostConnections({
      hosts: [local],
      sshPool: new SshConnectionPool({ env: {} }),
      dialer: daemon.dialer,
      reconnect: { firstDelayMs: 20 },
    });
    await app.client('desk');
    daemon.stop();
    await waitFor('reconnecting', 2_000, () => (app.status('desk').state === 'reconnecting' ? true : undefined), 5);
    await app.close();
    const dials = daemon.state.dials;
    await new Promise((r) => setTimeout(r, 150));
    expect(daemon.state.dials).toBe(dials);

    const cli = restartableDaemon();
    const once = new HostConnections({
      hosts: [local],
      sshPool: new SshConnectionPool({ env: {} }),
      dialer: cli.dialer,
    });
    await once.client('desk');
    cli.stop();
    await waitFor('error', 2_000, () => (once.status('desk').state === 'error' ? true : undefined), 5);
    expect(once.status('desk').message).toMatch(/it is reopened on next use$/);
    await new Promise((r) => setTimeout(r, 100));
    expect(cli.state.dials).toBe(1);
    cli.state.up = true;
    await once.client('desk');
    expect(once.status('desk').state).toBe('connected');
    await once.close();
  });
});
