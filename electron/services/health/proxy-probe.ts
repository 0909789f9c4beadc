/**
 * One health probe through a proxy, as its clients use it: connect to its address and
 * port, send one HTTP request with its BasicAuth credentials, read the status line (and,
 * for an echo URL, the few bytes of the answer). Bounded by a timeout from connect to the
 * end of the answer, so a proxy that accepts and then says nothing fails rather than hangs.
 */
import { request } from 'node:http';
import { bracketHost, isIpv4, isIpv6 } from '../../../shared/net.js';
import type { ProxyCredentials } from '../../../shared/proxy.js';

export interface ProbeTarget {
  address: string;
  port: number;
  credentials?: ProxyCredentials;
}

export interface ProbeOptions {
  /**
   * An absolute http:// URL fetched through the proxy: healthy on 2xx/3xx. Without one,
   * the proxy itself is asked (`GET /`) and any HTTP answer but 407 shows it works.
   */
  url?: string;
  /** The URL answers the caller's address (plain text, or JSON with `ip`): read it as the exit address. */
  echo?: boolean;
  timeoutMs: number;
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

export function probeProxy(target: ProbeTarget, options: ProbeOptions, now: () => number = () => performance.now()): Promise<ProbeResult> {
  const started = now();
  const url = options.url ? new URL(options.url) : undefined;
  const headers: Record<string, string> = { host: url ? url.host : `${bracketHost(target.address)}:${target.port}`, 'user-agent': 'egress-desk-health', connection: 'close' };
  if (target.credentials) headers['proxy-authorization'] = `Basic ${Buffer.from(`${target.credentials.username}:${target.credentials.password}`).toString('base64')}`;
  return new Promise((resolve) => {
    let settled = false;
    let latencyMs = 0;
    const finish = (r: Omit<ProbeResult, 'latencyMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve({ ...r, latencyMs: latencyMs || Math.round(now() - started) });
    };
    const req = request({ host: target.address, port: target.port, method: 'GET', path: url ? url.href : '/', headers, setHost: false }, (res) => {
      latencyMs = Math.max(1, Math.round(now() - started));
      const status = res.statusCode ?? 0;
      if (status === 407) return finish({ ok: false, status, error: 'the proxy refused the credentials (407)' });
      if (url && status >= 400) return finish({ ok: false, status, error: `the check URL answered ${status} through the proxy` });
      if (!options.echo) return finish({ ok: true, status });
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
        if (body.length > ECHO_LIMIT) finish({ ok: true, status, error: 'the echo URL answered more than an address' });
      });
      res.on('end', () => {
        const exitAddress = echoedAddress(body);
        finish(exitAddress ? { ok: true, status, exitAddress } : { ok: true, status, error: 'the echo URL did not answer an address' });
      });
      res.on('error', (err) => finish({ ok: false, status, error: err.message }));
    });
    const timer = setTimeout(() => finish({ ok: false, error: `no answer within ${options.timeoutMs / 1000} s` }), options.timeoutMs);
    req.on('error', (err) => finish({ ok: false, error: err.message }));
    req.end();
  });
}
