/**
 * One health probe through a proxy, as its clients use it: connect to its address and
 * port, send one HTTP request with its BasicAuth credentials (or, to a SOCKS5 proxy,
 * negotiate with its username and password and send the request through the tunnel),
 * read the status line (and, for an echo URL, the few bytes of the answer). Bounded by a timeout from connect to the
 * end of the answer, so a proxy that accepts and then says nothing fails rather than hangs.
 */
import { type ClientRequest, type IncomingMessage, type RequestOptions, request } from 'node:http';
import { type Socket, connect as netConnect } from 'node:net';
import type { Duplex } from 'node:stream';
import { rootCertificates, connect as tlsConnect } from 'node:tls';
import { SocksClient } from 'socks';
import { bracketHost, isIpv4, isIpv6 } from '../../../shared/net.js';
import type { ProxyCredentials, ProxyKind } from '../../../shared/proxy.js';
import { messageOf } from '../../../shared/errors.js';
import { judgeStatus, plainRequest, probePlainDirect, readPlainAnswer } from './plain-probe.js';

export interface ProbeTarget {
  address: string;
  port: number;
  credentials?: ProxyCredentials;
  /** Absent = http. */
  kind?: ProxyKind;
  /**
   * Opens the stream to the proxy's address and port from elsewhere (through its SSH host,
   * where this machine cannot reach the guest's network); absent: a TCP connect from here.
   */
  tunnel?: () => Promise<Duplex>;
}

export interface ProbeOptions {
  /**
   * An absolute http:// URL fetched through the proxy (https://: through a CONNECT tunnel,
   * TLS end to end with the certificate verified): healthy on 2xx/3xx. Without one,
   * the proxy itself is asked (`GET /`) and any HTTP answer but 407 shows it works.
   */
  url?: string;
  /** The URL answers the caller's address (plain text, or JSON with `ip`): read it as the exit address. */
  echo?: boolean;
  timeoutMs: number;
  /** Extra CA certificates (PEM) an https check URL's certificate may chain to; the system's are trusted always. */
  ca?: string;
}

export interface ProbeResult {
  ok: boolean;
  /** Connect to the end of the answer's headers. */
  latencyMs: number;
  status?: number;
  exitAddress?: string;
  error?: string;
}

/** At most this much of an echo answer is read: an address is a few dozen bytes. */
const ECHO_LIMIT = 4096;

/** The address in an echo service's answer: the text itself, or `{"ip": …}` (ipify's format=json). */
export function echoedAddress(body: string): string | undefined {
  let text = body.trim();
  if (text.startsWith('{')) {
    try {
      const ip = (JSON.parse(text) as { ip?: unknown }).ip;
      text = typeof ip === 'string' ? ip : '';
    } catch {
      return undefined;
    }
  }
  return isIpv4(text) || isIpv6(text) ? text : undefined;
}

type Finish = (r: Omit<ProbeResult, 'latencyMs'>) => void;

/** Reads an answer through the proxy: the status, and for an echo URL the address in the body. */
function readAnswer(res: IncomingMessage, url: URL | undefined, options: ProbeOptions, finish: Finish): void {
  const status = res.statusCode ?? 0;
  const verdict = judgeStatus(status, url !== undefined);
  if (!verdict.ok || !options.echo) return finish(verdict);
  let body = '';
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => {
    body += chunk;
    if (body.length > ECHO_LIMIT) finish({ ok: true, status, error: 'the echo URL answered more than an address' });
  });
  res.on('end', () => {
    const exitAddress = echoedAddress(body);
    finish(
      exitAddress
        ? { ok: true, status, exitAddress }
        : { ok: true, status, error: 'the echo URL did not answer an address' },
    );
  });
  res.on('error', (err) => finish({ ok: false, status, error: err.message }));
}

/** Runs one probe: `start` begins it and calls `finish` once; the timeout and the first answer bound it. */
function bounded(
  options: ProbeOptions,
  now: () => number,
  start: (finish: Finish, answered: () => void, cleanup: (c: () => void) => void) => void,
): Promise<ProbeResult> {
  const started = now();
  return new Promise((resolve) => {
    let settled = false;
    let latencyMs = 0;
    const cleanups: Array<() => void> = [];
    const finish: Finish = (r) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      for (const c of cleanups) c();
      resolve({ ...r, latencyMs: latencyMs || Math.round(now() - started) });
    };
    const timer = setTimeout(
      () => finish({ ok: false, error: `no answer within ${options.timeoutMs / 1000} s` }),
      options.timeoutMs,
    );
    start(
      finish,
      () => (latencyMs = Math.max(1, Math.round(now() - started))),
      // A stream that arrives after the end (a tunnel that opened late) is closed at once.
      (c) => (settled ? c() : cleanups.push(c)),
    );
  });
}

/** The TLS session to `url`'s host inside a tunnel `socket` (SNI by name, not for an address; the certificate verified). */
function tlsOver(socket: Duplex, url: URL, options: ProbeOptions) {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const { ca } = options;
  return tlsConnect({
    socket,
    host,
    ...(isIpv4(host) || isIpv6(host) ? {} : { servername: host }),
    ...(ca ? { ca: [ca, ...rootCertificatesOf()] } : {}),
  });
}

/** Node's bundled roots: given `ca`, Node trusts only it, so the defaults are added back. */
function rootCertificatesOf(): readonly string[] {
  return rootCertificates;
}

/** GET `url` over an open tunnel (TLS inside it for https), answering through `finish`. */
function getThrough(
  socket: Duplex,
  url: URL,
  options: ProbeOptions,
  finish: Finish,
  answered: () => void,
  cleanup: (c: () => void) => void,
): void {
  const stream = url.protocol === 'https:' ? tlsOver(socket, url, options) : socket;
  cleanup(() => stream.destroy());
  stream.on('error', (err: Error) =>
    finish({ ok: false, error: url.protocol === 'https:' ? `TLS to the check URL: ${err.message}` : err.message }),
  );
  const headers = { host: url.host, 'user-agent': 'egress-desk-health', connection: 'close' };
  const init = { createConnection: () => stream, path: `${url.pathname}${url.search}`, headers };
  sendGet(init, url, options, finish, answered, cleanup);
}

/**
 * Sends one GET (`init` plus the method and `setHost: false`: the caller's headers carry the
 * host) and reads its answer through `finish`; the request goes when the probe ends.
 */
function sendGet(
  init: RequestOptions,
  url: URL | undefined,
  options: ProbeOptions,
  finish: Finish,
  answered: () => void,
  cleanup: (c: () => void) => void,
): void {
  const req = request({ ...init, method: 'GET', setHost: false }, (res) => {
    answered();
    readAnswer(res, url, options, finish);
  });
  cleanup(() => req.destroy());
  req.on('error', (err) => finish({ ok: false, error: err.message }));
  req.end();
}

/** The request options that open the connection through `target.tunnel` (Node waits for the stream); none without one. */
function viaTunnel(
  target: ProbeTarget,
  finish: Finish,
): { createConnection?: (o: unknown, done: (err: Error | null, s: Duplex) => void) => undefined } {
  const { tunnel } = target;
  if (!tunnel) return {};
  return {
    createConnection: (_o, done) => {
      tunnel().then(
        (stream) => done(null, stream),
        (err: unknown) => finish({ ok: false, error: `through the host: ${messageOf(err)}` }),
      );
      return undefined;
    },
  };
}

/**
 * A plain TCP connection for a request, past Node's HTTP agent: a probe is one request on
 * its own connection (`connection: close`), so the agent's pooling is work for nothing, and
 * at 1,000 probes every 30 s it showed in the watched backend's CPU profile (bench (m)).
 */
function direct(target: ProbeTarget): { createConnection: () => Socket } {
  return { createConnection: () => netConnect({ host: target.address, port: target.port }) };
}

/** What the socks package's errors mean for a probe: a refused login, or a proxy that answered. */
const SOCKS_AUTH_REFUSED = /Authentication failed|no accepted authentication type/i;
const SOCKS_CONNECT_REJECTED = /proxy rejected connection/i;

/**
 * Through a SOCKS5 proxy: negotiate (username/password when given), CONNECT to the check
 * URL's host (by name: the proxy resolves it, as `curl --socks5-hostname` does) and send
 * the request in the tunnel. Without a check URL, CONNECT to the proxy's own port on its
 * loopback: a granted or a refused CONNECT both show that the proxy took the credentials.
 */
function probeSocks(target: ProbeTarget, options: ProbeOptions, now: () => number): Promise<ProbeResult> {
  const url = options.url ? new URL(options.url) : undefined;
  return bounded(options, now, (finish, answered, cleanup) => {
    const destination = url
      ? { host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || (url.protocol === 'https:' ? 443 : 80)) }
      : { host: '127.0.0.1', port: target.port };
    const existing = target.tunnel ? target.tunnel() : Promise.resolve(undefined);
    existing
      .then((existing_socket) =>
        SocksClient.createConnection({
          ...(existing_socket ? { existing_socket } : {}),
          command: 'connect',
          destination,
          proxy: {
            host: target.address,
            port: target.port,
            type: 5,
            ...(target.credentials
              ? { userId: target.credentials.username, password: target.credentials.password }
              : {}),
          },
          timeout: options.timeoutMs,
        }),
      )
      .then(
        ({ socket }) => {
          cleanup(() => socket.destroy());
          if (!url) {
            answered();
            return finish({ ok: true });
          }
          getThrough(socket, url, options, finish, answered, cleanup);
        },
        (err: unknown) => {
          const message = messageOf(err);
          if (SOCKS_AUTH_REFUSED.test(message))
            return finish({ ok: false, error: 'the proxy refused the credentials (SOCKS5)' });
          if (!url && SOCKS_CONNECT_REJECTED.test(message)) {
            answered();
            return finish({ ok: true });
          }
          finish({
            ok: false,
            error:
              url && SOCKS_CONNECT_REJECTED.test(message)
                ? `the proxy could not reach the check URL (${message})`
                : message,
          });
        },
      );
  });
}

export function probeProxy(
  target: ProbeTarget,
  options: ProbeOptions,
  now: () => number = () => performance.now(),
): Promise<ProbeResult> {
  if (target.kind === 'socks5') return probeSocks(target, options, now);
  const url = options.url ? new URL(options.url) : undefined;
  const headers: Record<string, string> = {
    host: url ? url.host : `${bracketHost(target.address)}:${target.port}`,
    'user-agent': 'egress-desk-health',
    connection: 'close',
  };
  if (target.credentials)
    headers['proxy-authorization'] =
      `Basic ${Buffer.from(`${target.credentials.username}:${target.credentials.password}`).toString('base64')}`;
  if (url?.protocol === 'https:') return probeHttpsThroughConnect(target, url, headers, options, now);
  if (!options.echo) return probePlain(target, url, headers, options, now);
  return bounded(options, now, (finish, answered, cleanup) =>
    sendGet(
      {
        host: target.address,
        port: target.port,
        path: url ? url.href : '/',
        headers,
        ...(target.tunnel ? viaTunnel(target, finish) : direct(target)),
      },
      url,
      options,
      finish,
      answered,
      cleanup,
    ),
  );
}

/** The proxy itself or an http:// check URL: the answer's head read on a bare socket (plain-probe.ts says why). */
function probePlain(
  target: ProbeTarget,
  url: URL | undefined,
  headers: Record<string, string>,
  options: ProbeOptions,
  now: () => number,
): Promise<ProbeResult> {
  return bounded(options, now, (finish, answered, cleanup) => {
    let text: string;
    try {
      text = plainRequest(url ? url.href : '/', headers);
    } catch (err) {
      return finish({ ok: false, error: messageOf(err) });
    }
    const hooks = { finish, answered, cleanup };
    const { tunnel } = target;
    if (!tunnel) return probePlainDirect(target.address, target.port, text, url !== undefined, hooks);
    tunnel().then(
      (stream) => readPlainAnswer(stream, text, url !== undefined, hooks),
      (err: unknown) => finish({ ok: false, error: `through the host: ${messageOf(err)}` }),
    );
  });
}

/** An https check URL through an HTTP proxy: CONNECT to its host and port, then TLS and the GET inside the tunnel. */
function probeHttpsThroughConnect(
  target: ProbeTarget,
  url: URL,
  headers: Record<string, string>,
  options: ProbeOptions,
  now: () => number,
): Promise<ProbeResult> {
  const authority = `${url.hostname}:${url.port || 443}`;
  return bounded(options, now, (finish, answered, cleanup) => {
    const req: ClientRequest = request({
      host: target.address,
      port: target.port,
      method: 'CONNECT',
      path: authority,
      headers: { ...headers, host: authority },
      setHost: false,
      ...viaTunnel(target, finish),
    });
    cleanup(() => req.destroy());
    req.on('connect', (res, socket) => {
      cleanup(() => socket.destroy());
      const status = res.statusCode ?? 0;
      if (status === 407) return finish({ ok: false, status, error: 'the proxy refused the credentials (407)' });
      if (status !== 200)
        return finish({ ok: false, status, error: `the proxy refused to CONNECT to ${authority} (${status})` });
      getThrough(socket, url, options, finish, answered, cleanup);
    });
    // A proxy that answers the CONNECT without upgrading (e.g. 407 with a body) ends here.
    req.on('response', (res) =>
      finish({
        ok: false,
        status: res.statusCode ?? 0,
        error:
          res.statusCode === 407
            ? 'the proxy refused the credentials (407)'
            : `the proxy refused to CONNECT to ${authority} (${res.statusCode})`,
      }),
    );
    req.on('error', (err) => finish({ ok: false, error: err.message }));
    req.end();
  });
}
