/**
 * The guest's side of a fake console (FakeHost.openConsole, fake-libvirt.ts): what the
 * guest prints reaches the client's stream, what the client writes is recorded.
 */
import type { Duplex } from 'node:stream';

/**
 * The guest's side of a fake console: what the guest prints reaches the client's stream,
 * what the client writes is recorded. Like libvirt, a domain has one console holder at a
 * time; a forced open ends the previous holder's stream, and so does the domain stopping.
 */
export class FakeConsole {
  /** Bytes the client wrote, in order. */
  readonly input: Buffer[] = [];
  /** Event-loop turns each write takes before its callback (simulated transport latency). */
  writeTicks = 1;
  private inputListeners = new Set<(text: string) => void>();

  constructor(
    readonly domain: string,
    readonly stream: Duplex,
  ) {}

  /** The guest prints `data` (bytes as given, or a string as UTF-8). */
  print(data: string | Uint8Array): void {
    if (!this.stream.destroyed && !this.stream.readableEnded)
      this.stream.push(typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data));
  }

  /** Everything written so far, as UTF-8 text. */
  written(): string {
    return Buffer.concat(this.input).toString('utf8');
  }

  /** Calls `listener` with each write (the guest "reading" its tty). */
  onInput(listener: (text: string) => void): () => void {
    this.inputListeners.add(listener);
    return () => void this.inputListeners.delete(listener);
  }

  /** @internal the client wrote a chunk */
  received(chunk: Buffer): void {
    this.input.push(chunk);
    for (const l of this.inputListeners) l(chunk.toString('utf8'));
  }

  /** The daemon ends the stream (EOF), as when the domain stops or another client forces the console. */
  end(): void {
    if (!this.stream.destroyed && !this.stream.readableEnded) this.stream.push(null);
  }

  /** The stream fails (a broken connection). */
  fail(error: Error): void {
    this.stream.destroy(error);
  }

  get open(): boolean {
    return !this.stream.destroyed && !this.stream.readableEnded;
  }
}
