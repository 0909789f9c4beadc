/**
 * Serial console sessions: a proxy's console stream (DOMAIN_OPEN_CONSOLE on its host,
 * through {@link LibvirtApi.openConsole}) carried as `console:data` events and fed by
 * `console:write`. The contract and its encoding are in shared/console.ts.
 *
 * - Output is decoded as a UTF-8 stream per session (a character split across chunks is
 *   kept whole) and coalesced for a few milliseconds, so a booting kernel's many small
 *   writes become few events.
 * - Input is written in order, and `console:write` resolves only once the connection has
 *   taken the bytes (the stream's write callback: the transport's drain). A client that
 *   types faster than that is refused past a bound instead of growing a buffer.
 * - A session ends once, with a cause: asked to (console:close, or its window or browser
 *   went), the domain stopped (lifecycle event, or the stream ending while the domain is
 *   not running), the stream ended or failed, or the backend closed. `console:closed` says
 *   which, in words.
 * - The console is opened SAFE: when another client holds it libvirt refuses, and the
 *   error asks whether to take it over (`force`), which disconnects that client.
 */
import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { TextDecoder } from 'node:util';
import {
  CONSOLE_DATA_MAX,
  CONSOLE_SESSIONS_MAX,
  type ConsoleCloseCause,
  type ConsoleOpen,
} from '../../../shared/console.js';
import type { ChannelInput, EventPayload } from '../../../shared/ipc.js';
import { ErrorCode, LibvirtError } from '../../libvirt/index.js';
import { ProxyNotFoundError } from '../provider/kvm/errors.js';
import type { LibvirtApi } from '../provider/kvm/libvirt-api.js';
import type { FleetAssembly } from './fleet-assembly.js';
import { messageOf } from '../../../shared/errors.js';

/** Another client (virsh console, another app) holds the console: `force` takes it over. */
export class ConsoleBusyError extends Error {
  override readonly name = 'ConsoleBusyError';
}

/** Too many sessions open at once. */
export class ConsoleLimitError extends Error {
  override readonly name = 'ConsoleLimitError';
}

/** A write or close for a session that has ended (or never existed). */
export class ConsoleSessionClosedError extends Error {
  override readonly name = 'ConsoleSessionClosedError';
}

/** Input arriving faster than the connection takes it. */
export class ConsoleInputOverflowError extends Error {
  override readonly name = 'ConsoleInputOverflowError';
}

/** The proxy exists but its domain is not running: there is no console to attach to. */
export class ConsoleUnavailableError extends Error {
  override readonly name = 'ConsoleUnavailableError';
}

type ConsoleEvent = 'console:data' | 'console:closed';

export interface ConsoleSessionsOptions {
  /** The backend to find proxies in (AppService's, built on first use). */
  backend: () => Promise<Pick<FleetAssembly, 'provider' | 'apiFor'>>;
  emit: <E extends ConsoleEvent>(event: E, payload: EventPayload<E>) => void;
  /** Most sessions open at once (default {@link CONSOLE_SESSIONS_MAX}). */
  maxSessions?: number;
  /** How long output is gathered before it is sent (ms, default 15). */
  flushMs?: number;
  /** Most input bytes waiting for the connection before writes are refused (default 256 KiB). */
  maxPendingInput?: number;
}

interface Session {
  id: string;
  name: string;
  host: string;
  domain: string;
  api: LibvirtApi;
  stream: Duplex;
  decoder: TextDecoder;
  pending: string;
  timer?: NodeJS.Timeout | undefined;
  off: Promise<(() => Promise<void>) | undefined>;
  done: boolean;
  /** Set when another session of this backend forced the console: the reason to give when this one's stream ends. */
  takenOver?: boolean;
}

/** libvirt's refusal when the console is held and FORCE was not given ("Active console session exists for this domain"). */
function isBusy(err: unknown): boolean {
  return (
    err instanceof LibvirtError &&
    err.code === ErrorCode.OPERATION_FAILED &&
    /active console session/i.test(err.message)
  );
}

const STOP_EVENTS = new Set(['STOPPED', 'UNDEFINED', 'CRASHED']);

export class ConsoleSessions {
  private readonly sessions = new Map<string, Session>();
  private readonly max: number;
  private readonly flushMs: number;
  private readonly maxPendingInput: number;
  /** Opens in flight: they count against the limit before their stream exists. */
  private opening = 0;

  constructor(private readonly options: ConsoleSessionsOptions) {
    this.max = options.maxSessions ?? CONSOLE_SESSIONS_MAX;
    this.flushMs = options.flushMs ?? 15;
    this.maxPendingInput = options.maxPendingInput ?? 256 * 1024;
  }

  /** Sessions open now. */
  get size(): number {
    return this.sessions.size;
  }

  async open(input: ChannelInput<'console:open'>): Promise<ConsoleOpen> {
    if (this.sessions.size + this.opening >= this.max) {
      const names = [...this.sessions.values()].map((s) => s.name);
      throw new ConsoleLimitError(
        `${this.max} consoles are open already${names.length ? ` (${names.join(', ')})` : ''}: close one, then connect again`,
      );
    }
    this.opening++;
    try {
      return await this.start(input.name, input.force ?? false);
    } finally {
      this.opening--;
    }
  }

  async write(input: ChannelInput<'console:write'>): Promise<{ bytes: number }> {
    const s = this.sessions.get(input.session);
    if (!s || s.done) throw new ConsoleSessionClosedError('this console session has ended: connect again');
    const bytes = Buffer.from(input.data, 'utf8');
    if (s.stream.writableLength + bytes.length > this.maxPendingInput) {
      throw new ConsoleInputOverflowError(
        `the console of ${s.name} is not taking input as fast as it arrives (${s.stream.writableLength} bytes waiting): wait a moment, then type again`,
      );
    }
    await new Promise<void>((resolve, reject) => {
      s.stream.write(bytes, (err) =>
        err
          ? reject(
              new ConsoleSessionClosedError(
                `the console of ${s.name} closed before the input was sent: ${messageOf(err)}`,
              ),
            )
          : resolve(),
      );
    });
    return { bytes: bytes.length };
  }

  /** Ends a session at the client's request; false when it had already ended. */
  close(input: ChannelInput<'console:close'>): { closed: boolean } {
    const s = this.sessions.get(input.session);
    if (!s || s.done) return { closed: false };
    this.finish(s, 'requested', 'closed');
    return { closed: true };
  }

  /** Ends every session (the backend is closing or being rebuilt). */
  closeAll(reason: string): void {
    for (const s of [...this.sessions.values()]) this.finish(s, 'shutdown', reason);
  }

  // ---- internals ----

  private async start(name: string, force: boolean): Promise<ConsoleOpen> {
    const backend = await this.options.backend();
    const proxy = await backend.provider.get(name);
    if (!proxy) throw new ProxyNotFoundError(name);
    if (proxy.state !== 'running')
      throw new ConsoleUnavailableError(
        `${name} is ${proxy.state}: its console exists only while it runs; start it, then connect`,
      );
    const api = await backend.apiFor(proxy.host);
    const mine = [...this.sessions.values()].filter((s) => s.host === proxy.host && s.domain === proxy.id);
    if (force) for (const s of mine) s.takenOver = true;
    let stream: Duplex;
    try {
      stream = await api.openConsole(proxy.id, { force });
    } catch (err) {
      for (const s of mine) s.takenOver = false;
      if (isBusy(err)) {
        throw new ConsoleBusyError(
          `another client holds the console of ${name}: take it over? (That disconnects it: ${mine.length ? 'another console window of this app' : 'a virsh console or another app'}.)`,
        );
      }
      throw err;
    }
    const s: Session = {
      id: randomUUID(),
      name,
      host: proxy.host,
      domain: proxy.id,
      api,
      stream,
      decoder: new TextDecoder('utf-8'),
      pending: '',
      done: false,
      off: Promise.resolve(undefined),
    };
    this.sessions.set(s.id, s);
    // The domain stopping ends the session even if the stream lingers.
    s.off = api
      .onLifecycle((e) => {
        if (e.domain === s.domain && STOP_EVENTS.has(e.event))
          this.finish(s, 'stopped', `${name} stopped: start it, then connect again`);
      })
      .catch(() => undefined);
    stream.on('data', (chunk: Buffer) => this.output(s, s.decoder.decode(chunk, { stream: true })));
    stream.on('end', () => void this.ended(s, null));
    stream.on('error', (err) => void this.ended(s, err));
    stream.on('close', () => void this.ended(s, null));
    return { session: s.id, host: s.host, domain: s.domain };
  }

  private output(s: Session, text: string): void {
    if (!text || s.done) return;
    s.pending += text;
    if (s.pending.length >= CONSOLE_DATA_MAX) this.flush(s);
    else s.timer ??= setTimeout(() => this.flush(s), this.flushMs);
  }

  private flush(s: Session): void {
    clearTimeout(s.timer);
    s.timer = undefined;
    while (s.pending.length) {
      let cut = Math.min(s.pending.length, CONSOLE_DATA_MAX);
      // Never split a surrogate pair between two events.
      if (cut < s.pending.length && /[\uD800-\uDBFF]/.test(s.pending[cut - 1]!)) cut--;
      this.options.emit('console:data', { session: s.id, data: s.pending.slice(0, cut) });
      s.pending = s.pending.slice(cut);
    }
  }

  /** The stream ended or failed: why depends on whether the domain still runs. */
  private async ended(s: Session, err: Error | null): Promise<void> {
    if (s.done) return;
    if (s.takenOver) return this.finish(s, 'ended', 'another console window took this console over');
    const domain = await s.api.getDomain(s.domain).catch(() => undefined);
    if (domain === null || (domain && domain.state !== 'running'))
      return this.finish(s, 'stopped', `${s.name} stopped: start it, then connect again`);
    if (err) return this.finish(s, 'error', `the console stream failed: ${messageOf(err)}; connect again`);
    this.finish(
      s,
      'ended',
      'the console was closed by the host (another client may have taken it over): connect again',
    );
  }

  private finish(s: Session, cause: ConsoleCloseCause, reason: string): void {
    if (s.done) return;
    // Output that arrived before the end is still shown (with a trailing partial character as U+FFFD).
    s.pending += s.decoder.decode();
    this.flush(s);
    s.done = true;
    this.sessions.delete(s.id);
    if (!s.stream.destroyed) s.stream.destroy();
    void s.off.then((off) => off?.()).catch(() => undefined);
    this.options.emit('console:closed', { session: s.id, cause, reason });
  }
}
