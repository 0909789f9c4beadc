/**
 * Reading the gateway's access log back (electron/services/gateway/access-log-reader.ts)
 * and one entry as a line (shared/gateway-log-line.ts), issue 40: the newest entries across
 * rotated files, lines that are not entries passed over, a follower that sees what is
 * appended and goes on across a rotation without losing what was written just before it.
 */
import { appendFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AccessLog, accessLogPath } from '../../../electron/services/gateway/access-log.js';
import {
  followAccessLog,
  parseAccessLines,
  recentAccessEntries,
} from '../../../electron/services/gateway/access-log-reader.js';
import type { GatewayAccessEntry } from '../../../shared/gateway.js';
import { formatAccessEntry } from '../../../shared/gateway-log-line.js';
import { tempDir } from '../../support/temp-dir.js';

const entry = (i: number, over: Partial<GatewayAccessEntry> = {}): GatewayAccessEntry => ({
  at: `2026-12-07T21:04:0${i % 10}.123Z`,
  client: 'ci',
  source: '127.0.0.1',
  method: 'CONNECT',
  target: 'example.com:443',
  member: 'web-1',
  host: 'edge-a',
  tries: 1,
  bytesOut: 1200,
  bytesIn: 34_000,
  ms: 120.4,
  outcome: 'ok',
  ...over,
});

describe('the access log read back', () => {
  it('parses complete lines, keeps an unfinished one, passes over what is not an entry', () => {
    const text = `${JSON.stringify(entry(1))}\nnot json\n{"at":1}\n\n${JSON.stringify(entry(2))}\n{"at":"2026`;
    const { entries, rest } = parseAccessLines(text);
    expect(entries).toEqual([entry(1), entry(2)]);
    expect(rest).toBe('{"at":"2026');
  });

  it('gives the newest entries across the rotated files, oldest first', async () => {
    const file = accessLogPath(tempDir('egress-gw-read-'));
    const log = new AccessLog(file, { maxBytes: 1_000, sync: true });
    for (let i = 0; i < 30; i++) log.write(entry(i, { bytesOut: i }));
    log.close();
    expect((await recentAccessEntries(file, 12)).map((e) => e.bytesOut)).toEqual(
      Array.from({ length: 12 }, (_, i) => 18 + i),
    );
    expect(await recentAccessEntries(`${file}.none`, 5)).toEqual([]);
  });

  it('follows what is appended, across a rotation, without losing what was written just before it', async () => {
    const file = accessLogPath(tempDir('egress-gw-follow-'));
    const log = new AccessLog(file, { maxBytes: 600, sync: true });
    log.write(entry(0, { bytesOut: 0 }));
    const seen: number[] = [];
    const stop = followAccessLog(file, (entries) => seen.push(...entries.map((e) => e.bytesOut)), 20);
    try {
      await new Promise((r) => setTimeout(r, 60));
      // Enough to rotate at least once between two looks.
      for (let i = 1; i <= 6; i++) log.write(entry(i, { bytesOut: i }));
      await expect.poll(() => seen, { timeout: 5_000 }).toEqual([1, 2, 3, 4, 5, 6]);
      appendFileSync(file, JSON.stringify(entry(7, { bytesOut: 7 })).slice(0, 20));
      await new Promise((r) => setTimeout(r, 60));
      appendFileSync(file, `${JSON.stringify(entry(7, { bytesOut: 7 })).slice(20)}\n`);
      await expect.poll(() => seen.at(-1), { timeout: 5_000 }).toBe(7);
    } finally {
      stop();
      log.close();
    }
  });

  it('says an entry in one line: when, who, what, through which member, how it ended', () => {
    expect(formatAccessEntry(entry(5))).toBe(
      '21:04:05  ci  CONNECT example.com:443 → web-1 (edge-a)  ok  1.2 KiB out, 33.2 KiB in  120 ms',
    );
    expect(
      formatAccessEntry(
        entry(6, {
          client: undefined,
          member: undefined,
          host: undefined,
          outcome: 'refused',
          status: 407,
          reason: 'unknown gateway client or wrong password',
          bytesIn: 0,
          bytesOut: 0,
          ms: 0,
        }),
      ),
    ).toBe('21:04:06  -  CONNECT example.com:443  refused 407: unknown gateway client or wrong password  0 ms');
    expect(formatAccessEntry(entry(7, { tries: 3 }))).toMatch(/→ web-1 \(edge-a\) after 2 failed/);
  });
});
