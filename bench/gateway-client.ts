/**
 * The client's side of benchmark (n) (bench/gateway.ts): the processes of gateway-child.ts
 * started and measured, and requests made the two ways a gateway's clients make them: a GET
 * with an absolute URL (plain HTTP) and `CONNECT` then a GET inside the tunnel (how HTTPS
 * passes). The same code asks the member directly and the gateway, so the client's own cost
 * is the same on both sides of a ratio.
 */
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { type Socket, connect } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';

/** The member's credentials (it checks them as a member's tinyproxy does). */
export const MEMBER_USER = 'member';
export const MEMBER_PASSWORD = 'member-bench-password';
/** The gateway's one client. */
export const CLIENT_NAME = 'bench';
export const CLIENT_PASSWORD = 'gateway-bench-password';

/** A forward proxy as a client sees it: its port on 127.0.0.1 and the Proxy-Authorization it takes. */
export interface Via {
  port: number;
  auth: string;
}

export function viaOf(port: number, user: string, password: string): Via {
  return { port, auth: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` };
}

/** A process of gateway-child.ts, listening on `port`. */
export interface Child {
  port: number;
  pid: number;
  /** Closes its stdin (it exits on that) and resolves once it has exited. */
  stop(): Promise<void>;
}

/** Starts gateway-child.ts as `role` and waits for the port it listens on. */
export async function startChild(role: 'origin' | 'member' | 'gateway', input?: object): Promise<Child> {
  const script = fileURLToPath(new URL('./gateway-child.js', import.meta.url));
  const args = [script, role, ...(input ? [JSON.stringify(input)] : [])];
  const child: ChildProcessByStdio<Writable, Readable, null> = spawn(process.execPath, args, {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const at = out.indexOf('\n');
      if (at >= 0) resolve(out.slice(0, at));
    });
    child.once('exit', (code) => reject(new Error(`gateway-child ${role} exited (${code}) before it listened`)));
  });
  const { port } = JSON.parse(line) as { port: number };
  return {
    port,
    pid: child.pid!,
    stop: async () => {
      child.stdin.end();
      // It exits on its stdin's close; a child stuck in a relay is ended after a while.
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** A process's resident memory now and its peak (VmHWM), in bytes, from /proc. */
export function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kib('VmRSS'), peak: kib('VmHWM') };
}

/**
 * A process's CPU time so far (user + system), in ms, from /proc (USER_HZ is 100 on Linux:
 * 10 ms steps, so it is summed over whole transfers, not read per chunk).
 */
export function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Opens a `CONNECT` tunnel through `via` to 127.0.0.1:`port`: the socket once the proxy answered 200. */
export function openTunnel(via: Via, port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port: via.port });
    let head = '';
    const fail = (err: Error) => (s.destroy(), reject(err));
    const onData = (c: Buffer) => {
      head += c.toString('latin1');
      const at = head.indexOf('\r\n\r\n');
      if (at < 0) return;
      s.off('data', onData);
      s.off('error', fail);
      // The origin speaks only when asked, so nothing may follow the proxy's answer yet.
      if (!/^HTTP\/1\.[01] 200/.test(head) || at + 4 !== head.length)
        return fail(new Error(`CONNECT answered ${JSON.stringify(head.split('\r\n')[0])}`));
      s.on('error', () => s.destroy());
      resolve(s);
    };
    s.on('data', onData);
    s.once('error', fail);
    s.write(
      `CONNECT 127.0.0.1:${port} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nProxy-Authorization: ${via.auth}\r\n\r\n`,
    );
  });
}

/** A GET of `path` inside an open tunnel (HTTP/1.1, kept alive for another): the body's length once all of it came. */
export function getInTunnel(s: Socket, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    let head = Buffer.alloc(0);
    let left = -1;
    let body = 0;
    const done = (err?: Error) => {
      s.off('data', onData);
      s.off('close', onClose);
      if (err) reject(err);
      else resolve(body);
    };
    const onClose = () => done(new Error(`the tunnel closed during GET ${path}`));
    const onData = (chunk: Buffer) => {
      let c = chunk;
      if (left < 0) {
        head = Buffer.concat([head, c]);
        const at = head.indexOf('\r\n\r\n');
        if (at < 0) return;
        const text = head.subarray(0, at).toString('latin1');
        const length = /\r\ncontent-length: *(\d+)/i.exec(text);
        if (!text.startsWith('HTTP/1.1 200') || !length)
          return done(new Error(`GET ${path} answered ${JSON.stringify(text.split('\r\n')[0])}`));
        left = Number(length[1]);
        c = head.subarray(at + 4);
      }
      left -= c.length;
      body += c.length;
      if (left <= 0) done();
    };
    s.on('data', onData);
    s.once('close', onClose);
    s.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
  });
}

/**
 * A GET of `url` through `via` on a connection of its own (`agent: false`: no keep-alive,
 * as the gateway itself asks its member): the body's length.
 */
export function forwardGet(via: Via, url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: via.port, path: url, agent: false, headers: { 'proxy-authorization': via.auth } },
      (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          return reject(new Error(`GET ${url} answered ${res.statusCode}`));
        }
        let n = 0;
        res.on('data', (c: Buffer) => (n += c.length));
        res.once('end', () => resolve(n));
        res.once('error', reject);
      },
    );
    req.once('error', reject);
    req.end();
  });
}
