/**
 * Fuzzing the libvirt RPC client with what a daemon (or a broken link) can send back:
 * replies that are right, truncated, too long, undecodable, with the wrong program,
 * serial, type or status, replies for another caller, stream packets interleaved with
 * replies, events, keepalives, garbage and impossible length words, cut into chunks
 * anywhere. For every case:
 * - a call that resolves got a payload the daemon sent for its own serial, never another's;
 * - a call that rejects does so with the client's own error types;
 * - nothing hangs: a reply that arrived settles its call, a failed connection settles every
 *   call and the download, and after destroy() everything settles;
 * - a length word outside [28, max] fails the connection at once, without waiting for the bytes;
 * - the download's sink gets a prefix of the data sent on its stream, in order.
 * No uncaught exception or unhandled rejection may escape (vitest fails the run on one).
 */
import { Duplex, Writable } from 'node:stream';
import { inspect, isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LibvirtClient } from '../../../electron/libvirt/client.js';
import { type Codec, decodeAll, encodeToBuffer } from '../../../electron/libvirt/codec.js';
import { ConnectionClosedError, LibvirtError, ProtocolError } from '../../../electron/libvirt/errors.js';
import { PacketParser } from '../../../electron/libvirt/framing.js';
import { KeepaliveProc, MessageStatus, MessageType, Program, encodePacket, type PacketHeader } from '../../../electron/libvirt/packet.js';
import { procedures } from '../../../electron/libvirt/procedures.js';
import { remoteError } from '../../../electron/libvirt/types.js';
import { FUZZ_TEST_TIMEOUT_MS, describeThrown, fuzzParams } from './fuzz-params.js';

/** Small, so that "oversized" is cheap to say; the client's default is libvirt's 32 MiB. */
const MAX_PACKET = 64 * 1024;

/** The client's transport: what it writes is kept, what the test pushes is what it reads. */
class Wire extends Duplex {
  readonly written: Buffer[] = [];
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (err?: Error | null) => void): void {
    this.written.push(chunk);
    callback();
  }
  override _read(): void {}
}

/** The plain calls the fuzz makes, each with a reply value that is its own. */
const CALLS: ReadonlyArray<{ reply: Codec<unknown>; value: (serial: number) => unknown; invoke: (client: LibvirtClient) => Promise<unknown> }> = [
  { reply: procedures.CONNECT_GET_URI.reply, value: (i) => `test:///call-${i}`, invoke: (client) => client.call('CONNECT_GET_URI') },
  { reply: procedures.CONNECT_GET_LIB_VERSION.reply, value: (i) => BigInt(9_000_000 + i), invoke: (client) => client.call('CONNECT_GET_LIB_VERSION') },
  { reply: procedures.AUTH_LIST.reply, value: (i) => [i, 0], invoke: (client) => client.call('AUTH_LIST') },
  { reply: procedures.DOMAIN_LOOKUP_BY_NAME.reply, value: (i) => ({ name: `vm${i}`, uuid: Buffer.alloc(16, i % 256), id: i }), invoke: (client) => client.call('DOMAIN_LOOKUP_BY_NAME', { name: 'vm' }) },
];

type Frame =
  | { kind: 'reply'; call: number; variant: 'ok' | 'garbage' | 'truncated' | 'trailing' | 'error' | 'error-garbage' | 'bad-status' | 'wrong-prog' | 'wrong-type'; bytes: Uint8Array; status: number }
  | { kind: 'misdirected'; call: number; to: number }
  | { kind: 'stream'; variant: 'data' | 'eof' | 'ok' | 'error' | 'hole' | 'bad-status' | 'reply-after'; bytes: Uint8Array }
  | { kind: 'event'; proc: number; bytes: Uint8Array }
  | { kind: 'keepalive'; proc: number; type: number }
  | { kind: 'random'; header: PacketHeader; bytes: Uint8Array }
  | { kind: 'garbage'; bytes: Uint8Array }
  | { kind: 'bad-length'; length: number };

const bytes = (max: number) => fc.uint8Array({ maxLength: max });
const frame: fc.Arbitrary<Frame> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('reply' as const),
      call: fc.nat(7),
      variant: fc.oneof({ weight: 4, arbitrary: fc.constant('ok' as const) }, fc.constantFrom('garbage' as const, 'truncated' as const, 'trailing' as const, 'error' as const, 'error-garbage' as const, 'bad-status' as const, 'wrong-prog' as const, 'wrong-type' as const)),
      bytes: bytes(48),
      status: fc.integer({ min: -2, max: 5 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('misdirected' as const), call: fc.nat(7), to: fc.oneof(fc.nat(7), fc.integer({ min: 100, max: 0xffffffff })) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('stream' as const), variant: fc.oneof({ weight: 4, arbitrary: fc.constant('data' as const) }, fc.constantFrom('eof' as const, 'ok' as const, 'error' as const, 'hole' as const, 'bad-status' as const, 'reply-after' as const)), bytes: bytes(64) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('event' as const), proc: fc.oneof(fc.constantFrom(318, 319, 107, 1), fc.integer({ min: -1, max: 500 })), bytes: bytes(48) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('keepalive' as const), proc: fc.constantFrom(KeepaliveProc.PING, KeepaliveProc.PONG, 3, 0), type: fc.constantFrom(MessageType.MESSAGE, MessageType.MESSAGE, MessageType.REPLY, MessageType.CALL) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('random' as const),
      header: fc.record({
        prog: fc.constantFrom(Program.REMOTE, Program.QEMU, Program.KEEPALIVE, 0xdeadbeef),
        vers: fc.constantFrom(1, 2),
        proc: fc.integer({ min: -5, max: 400 }),
        type: fc.integer({ min: -1, max: 7 }),
        serial: fc.oneof(fc.nat(10), fc.integer({ min: 0, max: 0xffffffff })),
        status: fc.integer({ min: -1, max: 3 }),
      }),
      bytes: bytes(48),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('garbage' as const), bytes: fc.uint8Array({ minLength: 1, maxLength: 12 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('bad-length' as const), length: fc.oneof(fc.integer({ min: 0, max: 27 }), fc.integer({ min: MAX_PACKET + 1, max: 0xffffffff }), fc.constant(0xffffffff)) }) },
);

interface Issued {
  serial: number;
  proc: number;
  /** Index into CALLS, or -1 for the download's stream. */
  call: number;
}

/** One packet (or raw bytes) of the script and where its bytes sit in the stream. */
interface Placed {
  frame: Frame;
  start: number;
  end: number;
  header?: PacketHeader;
  payload?: Buffer;
}

function errorPayload(message: string): Buffer {
  return encodeToBuffer(remoteError, { code: 42, domain: 10, message, level: 2, dom: null, str1: message, str2: null, str3: null, int1: 0, int2: 0, net: null });
}

/** Turns the script into bytes, given the serials the client chose. */
function render(frames: readonly Frame[], issued: readonly Issued[], stream: Issued | undefined): { wire: Buffer; placed: Placed[] } {
  const placed: Placed[] = [];
  const parts: Buffer[] = [];
  let offset = 0;
  const add = (f: Frame, bytesOut: Buffer, header?: PacketHeader, payload?: Buffer): void => {
    placed.push({ frame: f, start: offset, end: offset + bytesOut.length, ...(header ? { header, payload: payload ?? Buffer.alloc(0) } : {}) });
    parts.push(bytesOut);
    offset += bytesOut.length;
  };
  const packet = (f: Frame, header: PacketHeader, payload: Buffer): void => add(f, encodePacket(header, payload), header, payload);
  const plain = issued.filter((c) => c.call >= 0);
  for (const f of frames) {
    switch (f.kind) {
      case 'reply': {
        const c = plain[f.call % Math.max(1, plain.length)];
        if (!c) break;
        const good = encodeToBuffer(CALLS[c.call]!.reply, CALLS[c.call]!.value(c.serial));
        const h: PacketHeader = { prog: Program.REMOTE, vers: 1, proc: c.proc, type: MessageType.REPLY, serial: c.serial, status: MessageStatus.OK };
        const extra = Buffer.from(f.bytes);
        switch (f.variant) {
          case 'ok':
            packet(f, h, good);
            break;
          case 'garbage':
            packet(f, h, extra);
            break;
          case 'truncated':
            packet(f, h, good.subarray(0, Math.max(0, good.length - 1 - (extra.length % Math.max(1, good.length)))));
            break;
          case 'trailing':
            packet(f, h, Buffer.concat([good, extra.length ? extra : Buffer.from([0])]));
            break;
          case 'error':
            packet(f, { ...h, status: MessageStatus.ERROR }, errorPayload(`no domain for call ${c.serial}`));
            break;
          case 'error-garbage':
            packet(f, { ...h, status: MessageStatus.ERROR }, extra);
            break;
          case 'bad-status':
            packet(f, { ...h, status: f.status === 0 || f.status === 1 ? 7 : f.status }, good);
            break;
          case 'wrong-prog':
            packet(f, { ...h, prog: Program.QEMU }, good);
            break;
          case 'wrong-type':
            packet(f, { ...h, type: f.status === 1 ? MessageType.CALL : MessageType.CALL_WITH_FDS }, good);
            break;
        }
        break;
      }
      case 'misdirected': {
        // Call A's answer, addressed to call B (or to a serial nobody used).
        const a = plain[f.call % Math.max(1, plain.length)];
        if (!a) break;
        const b = f.to < 8 ? issued[f.to % issued.length]!.serial : f.to;
        packet(f, { prog: Program.REMOTE, vers: 1, proc: a.proc, type: MessageType.REPLY, serial: b, status: MessageStatus.OK }, encodeToBuffer(CALLS[a.call]!.reply, CALLS[a.call]!.value(a.serial)));
        break;
      }
      case 'stream': {
        if (!stream) break;
        const h: PacketHeader = { prog: Program.REMOTE, vers: 1, proc: stream.proc, type: MessageType.STREAM, serial: stream.serial, status: MessageStatus.CONTINUE };
        const data = Buffer.from(f.bytes.length ? f.bytes : [0x2a]);
        if (f.variant === 'data') packet(f, h, data);
        else if (f.variant === 'eof') packet(f, h, Buffer.alloc(0));
        else if (f.variant === 'ok') packet(f, { ...h, status: MessageStatus.OK }, Buffer.alloc(0));
        else if (f.variant === 'error') packet(f, { ...h, status: MessageStatus.ERROR }, errorPayload('volume vanished'));
        else if (f.variant === 'hole') packet(f, { ...h, type: MessageType.STREAM_HOLE }, Buffer.alloc(16));
        else if (f.variant === 'bad-status') packet(f, { ...h, status: 9 }, data);
        // The opening call's reply: the first one answers the call, later ones go to the stream.
        else packet(f, { ...h, type: MessageType.REPLY, status: MessageStatus.OK }, Buffer.alloc(0));
        break;
      }
      case 'event':
        packet(f, { prog: Program.REMOTE, vers: 1, proc: f.proc, type: MessageType.MESSAGE, serial: 1, status: MessageStatus.OK }, Buffer.from(f.bytes));
        break;
      case 'keepalive':
        packet(f, { prog: Program.KEEPALIVE, vers: 1, proc: f.proc, type: f.type, serial: 0, status: MessageStatus.OK }, Buffer.alloc(0));
        break;
      case 'random':
        packet(f, f.header, Buffer.from(f.bytes));
        break;
      case 'garbage':
        add(f, Buffer.from(f.bytes));
        break;
      case 'bad-length': {
        const b = Buffer.alloc(32);
        b.writeUInt32BE(f.length, 0);
        add(f, b);
        break;
      }
    }
  }
  return { wire: Buffer.concat(parts), placed };
}

type Outcome = { state: 'pending' } | { state: 'fulfilled'; value: unknown } | { state: 'rejected'; error: unknown };

function track(promise: Promise<unknown>): { outcome: Outcome; settled: Promise<void> } {
  const t: { outcome: Outcome; settled: Promise<void> } = { outcome: { state: 'pending' }, settled: Promise.resolve() };
  t.settled = promise.then(
    (value) => void (t.outcome = { state: 'fulfilled', value }),
    (error: unknown) => void (t.outcome = { state: 'rejected', error }),
  );
  return t;
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function isOwnError(err: unknown): boolean {
  return err instanceof ConnectionClosedError || err instanceof LibvirtError || err instanceof ProtocolError;
}

const scenario = fc.record({
  calls: fc.array(fc.nat(CALLS.length - 1), { minLength: 1, maxLength: 4 }),
  download: fc.boolean(),
  frames: fc.array(frame, { minLength: 1, maxLength: 12 }),
  /** Where the stream stops (a dead link mid-packet), as a fraction; 1 = everything arrives. */
  cut: fc.oneof({ weight: 3, arbitrary: fc.constant(1) }, fc.double({ min: 0, max: 1, noNaN: true })),
  /** Chunk boundaries, as fractions of the bytes delivered. */
  splits: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 6 }),
});

type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

async function runCase({ calls, download, frames, cut, splits }: Scenario): Promise<void> {
  const wire = new Wire();
  const client = LibvirtClient.fromStream(wire, { maxPacket: MAX_PACKET, closeTimeoutMs: 20 });
  const closes: Array<Error | undefined> = [];
  client.on('close', (reason) => closes.push(reason));

  const tracked = calls.map((c) => track(CALLS[c]!.invoke(client)));
  const sunk: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      sunk.push(Buffer.from(chunk));
      callback();
    },
  });
  const vol = { pool: 'p', name: 'v', key: '/k' };
  const transfer = download ? track(client.downloadVolume(vol, sink)) : undefined;

  // The serials and procedures the client put on the wire (read back, not assumed).
  const sent = new PacketParser().push(Buffer.concat(wire.written));
  expect(sent.length).toBe(calls.length + (download ? 1 : 0));
  const issued: Issued[] = sent.map((p, i) => ({ serial: p.header.serial, proc: p.header.proc, call: i < calls.length ? calls[i]! : -1 }));
  const streamCall = download ? issued.at(-1) : undefined;

  const { wire: bytesOut, placed } = render(frames, issued, streamCall);
  const delivered = Math.floor(bytesOut.length * cut);
  const cuts = [...new Set(splits.map((s) => Math.floor(s * delivered)))].sort((a, b) => a - b);
  let from = 0;
  for (const at of [...cuts, delivered]) {
    if (at > from) wire.push(bytesOut.subarray(from, at));
    from = Math.max(from, at);
  }
  for (let i = 0; i < 4; i++) await tick();

  // What the client is known to have read whole, up to the first bytes that could desynchronise framing.
  const whole: Placed[] = [];
  let mustFail = false;
  for (const p of placed) {
    if (p.frame.kind === 'bad-length') {
      if (p.start + 4 <= delivered) mustFail = true;
      break;
    }
    if (p.frame.kind === 'garbage' || p.end > delivered) break;
    whole.push(p);
  }
  const closed = client.closed;
  if (mustFail) expect(closed, 'a length word outside [28, max] did not fail the connection at once').toBe(true);
  for (const reason of closes) if (reason !== undefined) expect(isOwnError(reason), `close reason: ${describeThrown(reason)}`).toBe(true);

  tracked.forEach((t, i) => {
    const c = issued[i]!;
    const o = t.outcome;
    const repliesForIt = whole.filter((p) => p.header?.serial === c.serial && p.header.type === MessageType.REPLY);
    if (closed || repliesForIt.length > 0) expect(o.state, `call ${i} (serial ${c.serial}) hangs: ${inspect(o)}`).not.toBe('pending');
    if (o.state === 'fulfilled') {
      // Only a payload sent for this serial may answer it.
      const candidates = placed.filter((p) => p.header?.serial === c.serial && p.header.type === MessageType.REPLY && p.header.status === MessageStatus.OK && p.header.prog === Program.REMOTE && p.end <= delivered);
      const matches = candidates.some((p) => {
        try {
          return isDeepStrictEqual(decodeAll(CALLS[c.call]!.reply, p.payload!), o.value);
        } catch {
          return false;
        }
      });
      expect(matches, `call ${i} (serial ${c.serial}) resolved with ${String(o.value)}, which no reply for its serial carried`).toBe(true);
    }
    if (o.state === 'rejected') {
      expect(isOwnError(o.error), `call ${i} rejected with ${describeThrown(o.error)}`).toBe(true);
      if (o.error instanceof LibvirtError) expect(placed.some((p) => p.header?.serial === c.serial && p.header.status === MessageStatus.ERROR && p.end <= delivered)).toBe(true);
    }
  });

  if (transfer && streamCall) {
    const o = transfer.outcome;
    if (closed) expect(o.state, `the download hangs on a closed connection`).not.toBe('pending');
    if (o.state === 'rejected') expect(isOwnError(o.error), `download rejected with ${describeThrown(o.error)}`).toBe(true);
    if (o.state === 'fulfilled') expect(placed.some((p) => p.header?.serial === streamCall.serial && p.header.type === MessageType.STREAM && p.header.status === MessageStatus.OK && p.end <= delivered)).toBe(true);
    // The sink sees the stream's data in order: a prefix of what was sent on its serial.
    const sentData = Buffer.concat(placed.filter((p) => p.header?.serial === streamCall.serial && p.header.type === MessageType.STREAM && p.header.status === MessageStatus.CONTINUE && p.end <= delivered).map((p) => p.payload!));
    const got = Buffer.concat(sunk);
    expect(sentData.subarray(0, got.length).equals(got), 'the download received bytes that were not sent on its stream').toBe(true);
  }

  // After destroy() nothing may stay pending.
  client.destroy();
  const all = [...tracked.map((t) => t.settled), ...(transfer ? [transfer.settled] : [])];
  let timer: NodeJS.Timeout | undefined;
  const hung = await Promise.race([Promise.all(all).then(() => false), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), 2_000)))]);
  clearTimeout(timer);
  expect(hung, 'a call or the download did not settle after destroy()').toBe(false);
}

describe('fuzz: libvirt RPC reply frames', () => {
  it('replies right, wrong, misdirected, truncated and interleaved with a stream: own errors only, right caller only, nothing hangs', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, (s) => runCase(s)),
      fuzzParams({ timeout: 5_000 }),
    );
  }, FUZZ_TEST_TIMEOUT_MS);
});
