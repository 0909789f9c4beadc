/**
 * ConsoleOwner over a scripted router: sessions are remembered, other clients' sessions
 * refused, an open that answers after its client left is closed at once, and its hooks say
 * when a session becomes the client's and when it stops being so.
 */
import { describe, expect, it } from 'vitest';
import { ConsoleOwner } from '../../../electron/ipc/console-owner.js';
import type { Envelope } from '../../../shared/ipc.js';

/** A session id of the contract's shape (a UUID). */
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

function router() {
  const calls: Array<[string, unknown]> = [];
  let answerOpen: ((e: Envelope) => void) | undefined;
  let n = 0;
  return {
    calls,
    answerOpen: () => answerOpen?.({ ok: true, value: { session: id(++n), host: 'h', domain: 'd' } }),
    invoke: (channel: unknown, input: unknown): Promise<Envelope> => {
      calls.push([String(channel), input]);
      if (channel === 'console:open') return new Promise((resolve) => (answerOpen = resolve));
      return Promise.resolve({ ok: true, value: { closed: true } });
    },
  };
}

describe('ConsoleOwner', () => {
  it('remembers what it opened, refuses sessions it did not, and releases its own', async () => {
    const r = router();
    const owner = new ConsoleOwner(r);
    const opening = owner.invoke('console:open', { name: 'p' });
    r.answerOpen();
    await opening;
    expect(owner.owns(id(1))).toBe(true);
    const refused = await owner.invoke('console:write', { session: 'elsewhere', data: 'x' });
    expect(refused).toMatchObject({ ok: false, error: { name: 'ConsoleSessionUnknown' } });
    expect(r.calls.map(([c]) => c)).toEqual(['console:open']);
    await owner.release();
    expect(r.calls.at(-1)).toEqual(['console:close', { session: id(1) }]);
    expect(owner.owns(id(1))).toBe(false);
  });

  it('closes a session whose open answers after the client went', async () => {
    const r = router();
    const owner = new ConsoleOwner(r);
    const opening = owner.invoke('console:open', { name: 'p' });
    await owner.release();
    r.answerOpen();
    await opening;
    expect(owner.owns(id(1))).toBe(false);
    expect(r.calls).toEqual([
      ['console:open', { name: 'p' }],
      ['console:close', { session: id(1) }],
    ]);
  });

  it('tells its hooks what it claims and drops; a session that ended is not dropped again', async () => {
    const r = router();
    const told: string[] = [];
    const owner = new ConsoleOwner(r, {
      claimed: (s) => told.push(`claimed ${s}`),
      dropped: (s) => told.push(`dropped ${s}`),
    });
    for (let i = 0; i < 2; i++) {
      const opening = owner.invoke('console:open', { name: 'p' });
      r.answerOpen();
      await opening;
    }
    owner.ended(id(1));
    // Ended, it is still this client's: a late close is answered, not refused as another's.
    expect(owner.owns(id(1))).toBe(true);
    const late = owner.invoke('console:open', { name: 'p' });
    await owner.release();
    r.answerOpen();
    await late;
    expect(told).toEqual([`claimed ${id(1)}`, `claimed ${id(2)}`, `dropped ${id(2)}`, `dropped ${id(3)}`]);
  });
});
