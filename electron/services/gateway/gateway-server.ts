/**
 * The gateway's listener (issue 40): one HTTP proxy address for the whole fleet. Clients
 * send absolute-URI requests or `CONNECT` (HTTPS passes through untouched: no certificate
 * of ours, nothing decrypted), authenticated as one of the gateway's clients
 * (client-auth.ts), and each request leaves through a member chosen from their user name
 * (member-choice.ts), with the member's own credentials (upstream.ts).
 *
 * Failover: a member that cannot be reached, or closes or stays silent before answering,
 * is replaced by another one for the same request (at most `maxTries` members), since no
 * byte has been relayed yet; a member that answers with a refusal (its proxy's 403, a
 * target it cannot reach) is the answer, as the member would have given it directly.
 *
 * The server holds no state that the fleet and the settings cannot rebuild: counters and
 * sticky sessions are lost with it, and a sticky client then moves once.
 */
import { type IncomingMessage, type ServerResponse, type Server, createServer } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { GatewayClient } from '../../../shared/gateway.js';
import type { GatewayUser } from '../../../shared/gateway-user.js';
import { messageOf } from '../../../shared/errors.js';
import { basicCredentials, checkClient } from './client-auth.js';
import { type GatewayMember, MemberChooser } from './member-choice.js';
import { GatewayCounters } from './gateway-counters.js';
import {
  type GatewayAccessEntry,
  HOP_BY_HOP,
  answer407,
  answerPlain,
  listenGuarded,
  nothingRelayed,
} from './gateway-http.js';
import { type MemberRequest, askMember, sendToMember } from './member-request.js';
import { type RelayEntry, relayTunnel } from './tunnel-relay.js';
import {
  type MemberRoute,
  type Tunnel,
  MemberRefusedError,
  MemberUnreachableError,
  basicAuth,
  reachMember,
  tunnelThrough,
} from './upstream.js';

export type { GatewayAccessEntry } from './gateway-http.js';
export { isLoopback } from './gateway-http.js';

/** A member with the way to reach it. */
export interface GatewayMemberRoute extends GatewayMember, MemberRoute {}

export interface GatewayServerOptions {
  members: () => readonly GatewayMemberRoute[];
  clients: () => Promise<readonly GatewayClient[]>;
  log?: (entry: GatewayAccessEntry) => void;
  /** A sticky session moved to another member (its old one failed). */
  moved?: (user: GatewayUser, from: string, to: string) => void;
  /** Connecting to a member and its answer, each bounded by this (default 5 s). */
  connectTimeoutMs?: number;
  /** Members tried for one request at most (default 3). */
  maxTries?: number;
  /** Keep plain HTTP URLs' query strings in the access log (default off: they often hold secrets). */
  logQuery?: boolean;
  now?: () => number;
}

export class GatewayServer {
  readonly chooser: MemberChooser;
  readonly counters = new GatewayCounters();
  private readonly server: Server;
  private readonly sockets = new Set<Socket | Duplex>();
  private readonly now: () => number;

  constructor(private readonly options: GatewayServerOptions) {
    this.now = options.now ?? Date.now;
    this.chooser = new MemberChooser({ now: this.now });
    this.server = createServer((req, res) => void this.onRequest(req, res));
    this.server.on(
      'connect',
      (req: IncomingMessage, socket: Socket, head: Buffer) => void this.onConnect(req, socket, head),
    );
    this.server.on('connection', (s: Socket) => this.track(s));
  }

  /**
   * Listens on `bind` (default 127.0.0.1) and `port` (0: any free one). Anywhere but
   * loopback it refuses to start without a client: an open gateway would be a door into
   * the fleet for anyone who can reach this machine.
   */
  listen(port: number, bind = '127.0.0.1'): Promise<{ address: string; port: number }> {
    return listenGuarded(this.server, port, bind, this.options.clients);
  }

  /** Stops listening and ends every relay. */
  close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private track<T extends Socket | Duplex>(s: T): T {
    this.sockets.add(s);
    s.once('close', () => this.sockets.delete(s));
    return s;
  }

  /** The client and what it asks for, or the 407's reason. */
  private async who(req: IncomingMessage) {
    const source = req.socket.remoteAddress ?? '';
    return {
      source,
      check: checkClient(basicCredentials(req.headers['proxy-authorization']), source, await this.options.clients()),
    };
  }

  /**
   * Reaches a member for `user` and opens what `open` opens through it, trying another
   * member when one cannot be reached (nothing relayed yet), at most `maxTries`.
   */
  private async throughMember<T>(
    user: GatewayUser,
    open: (route: GatewayMemberRoute, stream: Duplex) => Promise<T>,
  ): Promise<
    | { member: GatewayMemberRoute; value: T; tries: number; reason?: string }
    | { refusal: string; tries: number; status: number }
  > {
    const tried = new Set<string>();
    const timeout = this.options.connectTimeoutMs ?? 5_000;
    const maxTries = this.options.maxTries ?? 3;
    let last = '';
    /** What happened before the member that answered (failed tries, a session's move): the log entry's reason. */
    const notes: string[] = [];
    while (tried.size < maxTries) {
      const members = this.options.members();
      const choice = this.chooser.choose(user, members, tried);
      if ('refusal' in choice)
        return { refusal: last ? `${choice.refusal} (last: ${last})` : choice.refusal, tries: tried.size, status: 502 };
      const member = choice.member as GatewayMemberRoute;
      if (choice.moved) {
        this.options.moved?.(user, choice.moved.from, member.key);
        const from = members.find((m) => m.key === choice.moved!.from);
        const why = !from ? 'gone' : !from.usable ? 'not usable now' : 'it failed to connect lately';
        if (!tried.has(choice.moved.from)) notes.push(`session moved from ${from?.name ?? choice.moved.from} (${why})`);
      }
      tried.add(member.key);
      let stream: Duplex | undefined;
      try {
        stream = this.track(await reachMember(member, timeout));
        const value = await open(member, stream);
        return { member, value, tries: tried.size, ...(notes.length ? { reason: notes.join('; ') } : {}) };
      } catch (err) {
        stream?.destroy();
        this.counters.failed(member.key);
        if (err instanceof MemberUnreachableError) {
          this.chooser.unreachable(member.key);
          last = `${member.name}: ${err.message}`;
          notes.push(last);
          continue;
        }
        const status = err instanceof MemberRefusedError && err.status === 403 ? 403 : 502;
        return { refusal: `${member.name}: ${messageOf(err)}`, tries: tried.size, status };
      }
    }
    return {
      refusal: `no member could be reached in ${maxTries} tries (last: ${last})`,
      tries: tried.size,
      status: 502,
    };
  }

  /**
   * A tunnel to `host:port` through a member chosen for `user`, or why none could be opened
   * (CONNECT here, and the SOCKS5 listener: gateway-socks.ts).
   */
  openTunnel(user: GatewayUser, host: string, port: number) {
    return this.throughMember(user, (route, stream) =>
      tunnelThrough(stream, route, { host, port, timeoutMs: this.options.connectTimeoutMs ?? 5_000 }),
    );
  }

  /** Relays between a client and an open tunnel until either side closes, then counts and logs it. */
  relay(
    client: Duplex,
    got: { member: GatewayMemberRoute; value: Tunnel },
    entry: RelayEntry,
    started: number,
    head: Buffer,
  ): void {
    relayTunnel(
      { chooser: this.chooser, counters: this.counters, log: (e) => this.log(e), now: this.now },
      client,
      got,
      entry,
      started,
      head,
    );
  }

  /** Refusals and failures of a listener, counted and logged as the server's own. */
  refusedEntry(client: string | undefined, entry: GatewayAccessEntry): void {
    this.counters.refused(client);
    this.log(entry);
  }

  private async onConnect(req: IncomingMessage, client: Socket, head: Buffer): Promise<void> {
    const started = this.now();
    client.on('error', () => client.destroy());
    const { source, check } = await this.who(req);
    const target = req.url ?? '';
    const base = { at: new Date(started).toISOString(), source, method: 'CONNECT', target };
    const m = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(target);
    if (!check.ok) {
      this.counters.refused(undefined);
      client.end(answer407(check.reason));
      return this.log({
        ...base,
        ...nothingRelayed('refused', check.reason, { status: 407 }),
        ms: this.now() - started,
      });
    }
    const who = { ...base, client: check.client.name };
    if (!m || Number(m[2]) > 65535) {
      client.end(answerPlain(400, 'Bad Request', 'CONNECT needs host:port'));
      return this.log({
        ...who,
        ...nothingRelayed('refused', 'not host:port', { status: 400 }),
        ms: this.now() - started,
      });
    }
    const host = m[1]!.replace(/^\[|\]$/g, '');
    const port = Number(m[2]);
    const got = await this.openTunnel(check.user, host, port);
    if ('refusal' in got) {
      this.counters.refused(check.client.name);
      client.end(answerPlain(got.status, got.status === 403 ? 'Forbidden' : 'Bad Gateway', got.refusal));
      return this.log({
        ...who,
        ...nothingRelayed('no-member', got.refusal, { status: got.status, tries: got.tries }),
        ms: this.now() - started,
      });
    }
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    this.relay(client, got, { ...who, tries: got.tries, ...(got.reason ? { reason: got.reason } : {}) }, started, head);
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = this.now();
    const { source, check } = await this.who(req);
    let url: URL | undefined;
    try {
      url = new URL(req.url ?? '');
    } catch {
      url = undefined;
    }
    const shown = url
      ? `${url.origin}${url.pathname}${this.options.logQuery ? url.search : ''}`
      : (req.url ?? '').slice(0, 200);
    const base = { at: new Date(started).toISOString(), source, method: req.method ?? 'GET', target: shown };
    const done = (entry: Omit<GatewayAccessEntry, 'at' | 'source' | 'method' | 'target' | 'ms'>) =>
      this.log({ ...base, ...entry, ms: this.now() - started });
    if (!check.ok) {
      this.counters.refused(undefined);
      res.writeHead(407, {
        'proxy-authenticate': 'Basic realm="egress-desk gateway"',
        'content-type': 'text/plain',
        connection: 'close',
      });
      res.end(`${check.reason}\n`);
      return done(nothingRelayed('refused', check.reason, { status: 407 }));
    }
    const clientName = check.client.name;
    if (!url || url.protocol !== 'http:') {
      res.writeHead(400, { 'content-type': 'text/plain', connection: 'close' });
      res.end('the gateway forwards absolute http:// URLs; use CONNECT for anything else\n');
      return done({ client: clientName, ...nothingRelayed('refused', 'not an absolute http:// URL', { status: 400 }) });
    }
    const target = url;
    const headers: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !HOP_BY_HOP.has(k)) headers[k] = v;
    headers.connection = 'close';
    // A request without a body can be sent again: through an HTTP member it waits for the
    // member's answer inside the failover (member-request.ts), so a member that closes
    // without answering is replaced like one that cannot be reached.
    const bodiless = !req.headers['transfer-encoding'] && Number(req.headers['content-length'] ?? 0) === 0;
    const method = req.method ?? 'GET';
    const clientGone = new AbortController();
    res.once('close', () => clientGone.abort());
    const got = await this.throughMember(check.user, async (route, stream) => {
      // An HTTP member takes the absolute URL with its own credentials; through a SOCKS5 one, the origin's own request.
      if (route.kind !== 'socks5') {
        const auth = route.credentials ? basicAuth(route.credentials) : undefined;
        const ask: MemberRequest = {
          method,
          path: target.href,
          headers: { ...headers, ...(auth ? { 'proxy-authorization': auth } : {}) },
        };
        const asked = bodiless ? await askMember(stream, ask, clientGone.signal) : undefined;
        return { stream, ask, asked };
      }
      const t = await tunnelThrough(stream, route, {
        host: target.hostname.replace(/^\[|\]$/g, ''),
        port: Number(target.port || 80),
        timeoutMs: this.options.connectTimeoutMs ?? 5_000,
      });
      const ask: MemberRequest = { method, path: `${target.pathname}${target.search}`, headers };
      return { stream: t.stream, ask, asked: undefined };
    });
    if ('refusal' in got) {
      this.counters.refused(clientName);
      res.writeHead(got.status, { 'content-type': 'text/plain', connection: 'close' });
      res.end(`${got.refusal}\n`);
      return done({
        client: clientName,
        ...nothingRelayed('no-member', got.refusal, { status: got.status, tries: got.tries }),
      });
    }
    const { member, value } = got;
    this.chooser.opened(member.key);
    let bytesOut = 0;
    let bytesIn = 0;
    let status: number | undefined;
    const finish = (outcome: 'ok' | 'failed', reason?: string) => {
      if (status === -1) return;
      const s = status;
      status = -1;
      this.chooser.closed(member.key);
      this.counters.relayed(member.key, clientName, bytesOut, bytesIn);
      done({
        client: clientName,
        member: member.name,
        host: member.host,
        tries: got.tries,
        bytesIn,
        bytesOut,
        outcome,
        ...(s !== undefined ? { status: s } : {}),
        ...(reason || got.reason ? { reason: [got.reason, reason].filter(Boolean).join('; ') } : {}),
      });
    };
    const relayAnswer = (answer: IncomingMessage) => {
      status = answer.statusCode ?? 502;
      const back: Record<string, string | string[]> = {};
      for (const [k, v] of Object.entries(answer.headers)) if (v !== undefined && !HOP_BY_HOP.has(k)) back[k] = v;
      res.writeHead(status, answer.statusMessage, back);
      answer.on('data', (c: Buffer) => (bytesIn += c.length));
      answer.pipe(res);
      answer.once('end', () => finish('ok'));
      answer.once('error', (err) => (res.destroy(), finish('failed', err.message)));
    };
    const up = value.asked?.up ?? sendToMember(value.stream, value.ask).once('response', relayAnswer);
    if (value.asked) relayAnswer(value.asked.answer);
    up.on('error', (err) => {
      if (!res.headersSent) {
        res.writeHead(502, { 'content-type': 'text/plain', connection: 'close' });
        res.end(`${member.name}: ${err.message}\n`);
        status = 502;
      } else res.destroy();
      finish('failed', err.message);
    });
    req.on('data', (c: Buffer) => (bytesOut += c.length));
    if (!value.asked) req.pipe(up);
    const clientWentAway = () => {
      if (status === -1) return;
      up.destroy();
      finish('failed', 'the client went away');
    };
    if (res.closed) clientWentAway();
    else res.once('close', clientWentAway);
  }

  private log(entry: GatewayAccessEntry): void {
    this.options.log?.(entry);
  }
}
