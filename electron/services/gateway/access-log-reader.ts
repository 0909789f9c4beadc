/**
 * Reading the gateway's access log back (issue 40): `gateway log`, its `--follow`, and the
 * counters `metrics` serves. The log is the one record of what went through the gateway,
 * whichever process ran it (the app or `egress-desk gateway`), so readers take it from the
 * file: the newest entries across the rotated files, and then what is appended, from a byte
 * offset, noticing a rotation (the file shrank or is another file) and starting the new one
 * from its beginning. Lines that are not entries (a half-written last line, a hand edit)
 * are passed over, never fatal.
 */
import { open, readFile, stat } from 'node:fs/promises';
import { type GatewayAccessEntry, GatewayAccessEntrySchema } from '../../../shared/gateway.js';
import { KEEP_FILES } from '../log/logger.js';

/** Parses the complete lines of `text`; `rest` is an unfinished last line. */
export function parseAccessLines(text: string): { entries: GatewayAccessEntry[]; rest: string } {
  const lines = text.split('\n');
  const rest = lines.pop() ?? '';
  const entries: GatewayAccessEntry[] = [];
  for (const line of lines) {
    if (!line.trim()) continue;
    try {
      const parsed = GatewayAccessEntrySchema.safeParse(JSON.parse(line));
      if (parsed.success) entries.push(parsed.data);
    } catch {
      /* not JSON: passed over */
    }
  }
  return { entries, rest };
}

/** The newest `limit` entries, oldest first, from the rotated files (`.N` … `.1`) and the file itself. */
export async function recentAccessEntries(file: string, limit: number): Promise<GatewayAccessEntry[]> {
  const out: GatewayAccessEntry[] = [];
  for (const f of [...Array.from({ length: KEEP_FILES }, (_, i) => `${file}.${KEEP_FILES - i}`), file]) {
    const text = await readFile(f, 'utf8').catch(() => undefined);
    if (text !== undefined) out.push(...parseAccessLines(text.endsWith('\n') ? text : `${text}\n`).entries);
  }
  return out.slice(Math.max(0, out.length - limit));
}

/** Where a follower is in the file. */
interface Position {
  ino: number;
  offset: number;
  rest: string;
}

/**
 * Calls `onEntries` with what is appended to `file` from now on (checked every
 * `intervalMs`), across rotations. Returns the stop function.
 */
export function followAccessLog(
  file: string,
  onEntries: (entries: GatewayAccessEntry[]) => void,
  intervalMs = 500,
): () => void {
  let position: Position | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const start = stat(file).then(
    (s) => (position = { ino: s.ino, offset: s.size, rest: '' }),
    () => (position = { ino: -1, offset: 0, rest: '' }),
  );
  /** Reads `f` from the position on to its end (size `size`), keeping an unfinished last line. */
  const readOn = async (f: string, ino: number, size: number) => {
    const from = position!.offset;
    if (size <= from) return;
    const handle = await open(f, 'r');
    try {
      const buf = Buffer.alloc(size - from);
      await handle.read(buf, 0, buf.length, from);
      const { entries, rest } = parseAccessLines(position!.rest + buf.toString('utf8'));
      position = { ino, offset: size, rest };
      if (entries.length) onEntries(entries);
    } finally {
      await handle.close();
    }
  };
  const tick = async () => {
    await start;
    const s = await stat(file).catch(() => undefined);
    if (!s || !position) return;
    if (s.ino !== position.ino || s.size < position.offset) {
      // Rotated, once or more: the rest of the file we were reading (now `.k`), then every
      // file newer than it (`.k-1` … `.1`) whole, then the new one from its start.
      const rotated = [];
      for (let k = 1; k <= KEEP_FILES; k++) {
        const r = await stat(`${file}.${k}`).catch(() => undefined);
        if (!r) break;
        rotated.push({ f: `${file}.${k}`, ino: r.ino, size: r.size });
        if (r.ino === position.ino) break;
      }
      const at = rotated.findIndex((r) => r.ino === position!.ino);
      if (at >= 0)
        for (let k = at; k >= 0; k--) {
          const r = rotated[k]!;
          if (k < at) position = { ino: r.ino, offset: 0, rest: '' };
          await readOn(r.f, r.ino, r.size);
        }
      position = { ino: s.ino, offset: 0, rest: '' };
    }
    await readOn(file, s.ino, s.size);
  };
  const schedule = () => {
    if (!stopped)
      timer = setTimeout(
        () =>
          void tick()
            .catch(() => undefined)
            .then(schedule),
        intervalMs,
      );
  };
  schedule();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
