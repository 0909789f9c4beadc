import { beforeEach, describe, expect, it, vi } from 'vitest';

const exposed: Record<string, unknown> = {};
const invoke = vi.fn(async (..._args: unknown[]) => ({ ok: true, value: 'x' }));
type Handler = (event: unknown, ...args: unknown[]) => void;
const handlers = new Map<string, Set<Handler>>();

vi.mock('electron', () => ({
  contextBridge: { exposeInMainWorld: (key: string, api: unknown) => (exposed[key] = api) },
  ipcRenderer: {
    invoke: (...args: unknown[]) => invoke(...args),
    on: (channel: string, handler: Handler) => {
      if (!handlers.has(channel)) handlers.set(channel, new Set());
      handlers.get(channel)!.add(handler);
    },
    removeListener: (channel: string, handler: Handler) => handlers.get(channel)?.delete(handler),
  },
}));

function send(channel: string, ...args: unknown[]) {
  for (const h of handlers.get(channel) ?? []) h({ sender: 'secret' }, ...args);
}

describe('preload', () => {
  beforeEach(async () => {
    vi.resetModules();
    handlers.clear();
    await import('../../../electron/preload.js');
  });

  it('exposes exactly one object, window.egress, with invoke and on only', () => {
    expect(Object.keys(exposed)).toEqual(['egress']);
    const bridge = exposed.egress as Record<string, unknown>;
    expect(Object.keys(bridge).sort()).toEqual(['invoke', 'on']);
    expect(typeof bridge.invoke).toBe('function');
    expect(typeof bridge.on).toBe('function');
  });

  it('forwards calls over the single invoke channel', async () => {
    const bridge = exposed.egress as { invoke(c: string, i?: unknown): Promise<unknown> };
    await expect(bridge.invoke('config:get')).resolves.toEqual({ ok: true, value: 'x' });
    expect(invoke).toHaveBeenCalledWith('egress:invoke', 'config:get', undefined);
  });

  it("on() delivers one event's payloads (never the IPC event) and unsubscribes", () => {
    const bridge = exposed.egress as { on(e: string, l: (p: unknown) => void): () => void };
    const got: unknown[][] = [];
    const off = bridge.on('task:update', (...args) => got.push(args));
    send('egress:event', 'task:update', { id: 't1' });
    send('egress:event', 'host:status', { name: 'h' });
    expect(got).toEqual([[{ id: 't1' }]]);
    off();
    send('egress:event', 'task:update', { id: 't2' });
    expect(got).toHaveLength(1);
    // The one IPC listener stays: it is the bridge's, not the subscription's.
    expect(handlers.get('egress:event')?.size).toBe(1);
  });

  it('adds one ipcRenderer listener however many subscriptions (no MaxListeners warning)', () => {
    const bridge = exposed.egress as { on(e: string, l: (p: unknown) => void): () => void };
    const events = ['task:update', 'proxy:changed', 'host:status', 'console:data', 'console:closed', 'app:command'];
    const offs = Array.from({ length: 13 }, (_, i) => bridge.on(events[i % events.length]!, () => undefined));
    expect([...handlers.values()].reduce((n, set) => n + set.size, 0)).toBe(1);
    expect(handlers.get('egress:event')?.size).toBe(1);
    for (const off of offs) off();
    expect(handlers.get('egress:event')?.size).toBe(1);
  });

  it('dispatches each event to its own listeners only, and each unsubscribe ends just its own', () => {
    const bridge = exposed.egress as { on(e: string, l: (p: unknown) => void): () => void };
    const got: string[] = [];
    const offA = bridge.on('task:update', (p) => got.push(`a:${String(p)}`));
    bridge.on('task:update', (p) => got.push(`b:${String(p)}`));
    bridge.on('host:status', (p) => got.push(`h:${String(p)}`));
    send('egress:event', 'task:update', 1);
    send('egress:event', 'host:status', 2);
    send('egress:event', 'proxy:changed', 3);
    send('egress:event', 42, 4); // not an event name: ignored
    expect(got).toEqual(['a:1', 'b:1', 'h:2']);
    offA();
    offA(); // twice: harmless
    send('egress:event', 'task:update', 5);
    expect(got).toEqual(['a:1', 'b:1', 'h:2', 'b:5']);
  });

  it('an unsubscribe during dispatch takes effect from the next event', () => {
    const bridge = exposed.egress as { on(e: string, l: (p: unknown) => void): () => void };
    const got: string[] = [];
    let offB = () => {};
    bridge.on('task:update', () => {
      got.push('a');
      offB();
    });
    offB = bridge.on('task:update', () => got.push('b'));
    send('egress:event', 'task:update', 1);
    send('egress:event', 'task:update', 2);
    expect(got).toEqual(['a', 'b', 'a']);
  });

  it('a listener that throws does not stop the others; its error is thrown again after they ran', () => {
    const bridge = exposed.egress as { on(e: string, l: (p: unknown) => void): () => void };
    const got: unknown[] = [];
    bridge.on('task:update', (p) => got.push(['first', p]));
    bridge.on('task:update', () => {
      throw new Error('boom');
    });
    bridge.on('task:update', (p) => got.push(['last', p]));
    expect(() => send('egress:event', 'task:update', 't')).toThrow('boom');
    expect(got).toEqual([
      ['first', 't'],
      ['last', 't'],
    ]);

    bridge.on('task:update', () => {
      throw new Error('bang');
    });
    let thrown: unknown;
    try {
      send('egress:event', 'task:update', 'u');
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(AggregateError);
    expect((thrown as AggregateError).errors.map((e: Error) => e.message)).toEqual(['boom', 'bang']);
    expect(got).toHaveLength(4);
  });
});
