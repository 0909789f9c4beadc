/**
 * The gateway's SOCKS5 listener (issue 40): the same members, choice, failover, counters and
 * access log as the HTTP listener (gateway-server.ts), for clients that speak SOCKS5
 * (`curl --socks5-hostname`, browsers, SSH's ProxyCommand). The protocol side is
 * `@pondwader/socks5-server` (MIT, no dependencies, with hooks for authentication and for
 * handling the connection ourselves); the user name and password are the gateway client's,
 * with the same grammar, and a `CONNECT` by name is passed on by name, so the member
 * resolves it (as `--socks5-hostname` asks).
 */
import { type Server, type Socket, createServer as createNetServer } from 'node:net';
import { type Socks5Server, createServer } from '@pondwader/socks5-server';
import type { GatewayClient } from '../../../shared/gateway.js';
import { checkClient } from './client-auth.js';
import { listenGuarded, nothingRelayed } from './gateway-http.js';
import type { GatewayServer } from './gateway-server.js';

/** The SOCKS5 reply for a tunnel that could not be opened: not allowed for a member's refusal, host unreachable for the rest. */
function refusedStatus(status: number): 'CONNECTION_NOT_ALLOWED' | 'HOST_UNREACHABLE' {
  return status === 403 ? 'CONNECTION_NOT_ALLOWED' : 'HOST_UNREACHABLE';
}

/** The client's address: the library types its socket as a Duplex, and ours are sockets. */
function sourceOf(socket: object): string {
  return 'remoteAddress' in socket && typeof socket.remoteAddress === 'string' ? socket.remoteAddress : '';
}

export class GatewaySocksListener {
  private readonly server: Socks5Server;
  /** Our own listener, handing each connection to the protocol side (its documented `_handleConnection`), so we know its address and can end its connections. */
  private readonly listener: Server;
  private readonly sockets = new Set<Socket>();

  constructor(
    private readonly gateway: GatewayServer,
    private readonly clients: () => Promise<readonly GatewayClient[]>,
    private readonly now: () => number = Date.now,
  ) {
    this.server = createServer();
    this.server.setAuthHandler(async (conn) => {
      const source = sourceOf(conn.socket);
      const check = checkClient({ user: conn.username, password: conn.password }, source, await this.clients());
      if (!check.ok)
        this.gateway.refusedEntry(undefined, {
          at: new Date(this.now()).toISOString(),
          source,
          method: 'SOCKS5',
          target: '',
          ms: 0,
          ...nothingRelayed('refused', check.reason),
        });
      return check.ok;
    });
    this.server.setConnectionHandler((conn, sendStatus) => void this.connect(conn, sendStatus));
    this.listener = createNetServer((socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
      socket.on('error', () => socket.destroy());
      this.server._handleConnection(socket);
    });
  }

  private async connect(
    conn: Parameters<Socks5Server['connectionHandler']>[0],
    sendStatus: Parameters<Socks5Server['connectionHandler']>[1],
  ): Promise<void> {
    const started = this.now();
    const source = sourceOf(conn.socket);
    const target = `${conn.destAddress.includes(':') ? `[${conn.destAddress}]` : conn.destAddress}:${conn.destPort}`;
    const base = { at: new Date(started).toISOString(), source, method: 'SOCKS5', target };
    conn.socket.on('error', () => conn.socket.destroy());
    if (conn.command !== 'connect') return sendStatus('COMMAND_NOT_SUPPORTED');
    // The auth handler let it in; checked again for what the user name asks (cheap, and the
    // clients may have changed between the two).
    const check = checkClient(
      { user: conn.username ?? '', password: conn.password ?? '' },
      source,
      await this.clients(),
    );
    if (!check.ok) {
      sendStatus('CONNECTION_NOT_ALLOWED');
      return this.gateway.refusedEntry(undefined, {
        ...base,
        ms: this.now() - started,
        ...nothingRelayed('refused', check.reason),
      });
    }
    const got = await this.gateway.openTunnel(check.user, conn.destAddress, conn.destPort);
    if ('refusal' in got) {
      sendStatus(refusedStatus(got.status));
      return this.gateway.refusedEntry(check.client.name, {
        ...base,
        client: check.client.name,
        ms: this.now() - started,
        ...nothingRelayed('no-member', got.refusal, { status: got.status, tries: got.tries }),
      });
    }
    sendStatus('REQUEST_GRANTED');
    this.gateway.relay(
      conn.socket,
      got,
      { ...base, client: check.client.name, tries: got.tries, ...(got.reason ? { reason: got.reason } : {}) },
      started,
      Buffer.alloc(0),
    );
  }

  /** Listens as the HTTP listener does: loopback by default, elsewhere only with clients. */
  listen(port: number, bind = '127.0.0.1'): Promise<{ address: string; port: number }> {
    return listenGuarded(this.listener, port, bind, this.clients);
  }

  close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    return new Promise((resolve) => this.listener.close(() => resolve()));
  }
}
