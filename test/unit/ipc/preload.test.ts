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

  it('on() delivers one event\'s payloads (never the IPC event) and unsubscribes', () => {
    const bridge = exposed.egress as { on(e: string, l: (p: unknown) => void): () => void };
    const got: unknown[][] = [];
    const off = bridge.on('task:update', (...args) => got.push(args));
    send('egress:event', 'task:update', { id: 't1' });
    send('egress:event', 'host:status', { name: 'h' });
    expect(got).toEqual([[{ id: 't1' }]]);
    off();
    send('egress:event', 'task:update', { id: 't2' });
    expect(got).toHaveLength(1);
    expect(handlers.get('egress:event')?.size).toBe(0);
  });
});
