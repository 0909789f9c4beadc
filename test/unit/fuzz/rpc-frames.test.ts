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
import { decodeAll } from '../../../electron/libvirt/codec.js';
import { ConnectionClosedError, LibvirtError, ProtocolError } from '../../../electron/libvirt/errors.js';
import { PacketParser } from '../../../electron/libvirt/framing.js';
import { MessageStatus, MessageType, Program } from '../../../electron/libvirt/packet.js';
import { FUZZ_TEST_TIMEOUT_MS, describeThrown, fuzzParams } from './fuzz-params.js';
import { CALLS, type Issued, MAX_PACKET, type Placed, frame, render } from './rpc-frame-script.js';

/** The client's transport: what it writes is kept, what the test pushes is what it reads. */
class Wire extends Duplex {
  readonly written: Buffer[] = [];
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (err?: Error | null) => void): void {
    this.written.push(chunk);
    callback();
  }
  override _read(): void {}
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
  const issued: Issued[] = sent.map((p, i) => ({
    serial: p.header.serial,
    proc: p.header.proc,
    call: i < calls.length ? calls[i]! : -1,
  }));
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
  for (const reason of closes)
    if (reason !== undefined) expect(isOwnError(reason), `close reason: ${describeThrown(reason)}`).toBe(true);

  tracked.forEach((t, i) => {
    const c = issued[i]!;
    const o = t.outcome;
    const repliesForIt = whole.filter((p) => p.header?.serial === c.serial && p.header.type === MessageType.REPLY);
    if (closed || repliesForIt.length > 0)
      expect(o.state, `call ${i} (serial ${c.serial}) hangs: ${inspect(o)}`).not.toBe('pending');
    if (o.state === 'fulfilled') {
      // Only a payload sent for this serial may answer it.
      const candidates = placed.filter(
        (p) =>
          p.header?.serial === c.serial &&
          p.header.type === MessageType.REPLY &&
          p.header.status === MessageStatus.OK &&
          p.header.prog === Program.REMOTE &&
          p.end <= delivered,
      );
      const matches = candidates.some((p) => {
        try {
          return isDeepStrictEqual(decodeAll(CALLS[c.call]!.reply, p.payload!), o.value);
        } catch {
          return false;
        }
      });
      expect(
        matches,
        `call ${i} (serial ${c.serial}) resolved with ${String(o.value)}, which no reply for its serial carried`,
      ).toBe(true);
    }
    if (o.state === 'rejected') {
      expect(isOwnError(o.error), `call ${i} rejected with ${describeThrown(o.error)}`).toBe(true);
      if (o.error instanceof LibvirtError)
        expect(
          placed.some(
            (p) => p.header?.serial === c.serial && p.header.status === MessageStatus.ERROR && p.end <= delivered,
          ),
        ).toBe(true);
    }
  });

  if (transfer && streamCall) {
    const o = transfer.outcome;
    if (closed) expect(o.state, `the download hangs on a closed connection`).not.toBe('pending');
    if (o.state === 'rejected')
      expect(isOwnError(o.error), `download rejected with ${describeThrown(o.error)}`).toBe(true);
    if (o.state === 'fulfilled')
      expect(
        placed.some(
          (p) =>
            p.header?.serial === streamCall.serial &&
            p.header.type === MessageType.STREAM &&
            p.header.status === MessageStatus.OK &&
            p.end <= delivered,
        ),
      ).toBe(true);
    // The sink sees the stream's data in order: a prefix of what was sent on its serial.
    const sentData = Buffer.concat(
      placed
        .filter(
          (p) =>
            p.header?.serial === streamCall.serial &&
            p.header.type === MessageType.STREAM &&
            p.header.status === MessageStatus.CONTINUE &&
            p.end <= delivered,
        )
        .map((p) => p.payload!),
    );
    const got = Buffer.concat(sunk);
    expect(
      sentData.subarray(0, got.length).equals(got),
      'the download received bytes that were not sent on its stream',
    ).toBe(true);
  }

  // After destroy() nothing may stay pending.
  client.destroy();
  const all = [...tracked.map((t) => t.settled), ...(transfer ? [transfer.settled] : [])];
  let timer: NodeJS.Timeout | undefined;
  const hung = await Promise.race([
    Promise.all(all).then(() => false),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), 2_000))),
  ]);
  clearTimeout(timer);
  expect(hung, 'a call or the download did not settle after destroy()').toBe(false);
}

describe('fuzz: libvirt RPC reply frames', () => {
  it(
    'replies right, wrong, misdirected, truncated and interleaved with a stream: own errors only, right caller only, nothing hangs',
    async () => {
      await fc.assert(
        fc.asyncProperty(scenario, (s) => runCase(s)),
        fuzzParams({ timeout: 5_000 }),
      );
    },
    FUZZ_TEST_TIMEOUT_MS,
  );
});
