import { beforeEach, describe, expect, it, vi } from 'vitest';

const exposed: Record<string, unknown> = {};
const invoke = vi.fn(async (..._args: unknown[]) => ({ ok: true, value: 'x' }));

vi.mock('electron', () => ({
  contextBridge: { exposeInMainWorld: (key: string, api: unknown) => (exposed[key] = api) },
  ipcRenderer: { invoke: (...args: unknown[]) => invoke(...args) },
}));

describe('preload', () => {
  beforeEach(async () => {
    vi.resetModules();
    await import('../../../electron/preload.js');
  });

  it('exposes exactly one object, window.egress, with invoke only', () => {
    expect(Object.keys(exposed)).toEqual(['egress']);
    const bridge = exposed.egress as Record<string, unknown>;
    expect(Object.keys(bridge)).toEqual(['invoke']);
    expect(typeof bridge.invoke).toBe('function');
  });

  it('forwards calls over the single invoke channel', async () => {
    const bridge = exposed.egress as { invoke(c: string, i?: unknown): Promise<unknown> };
    await expect(bridge.invoke('config:get')).resolves.toEqual({ ok: true, value: 'x' });
    expect(invoke).toHaveBeenCalledWith('egress:invoke', 'config:get', undefined);
  });
});
