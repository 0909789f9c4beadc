/**
 * The contract's typed identifiers where they cross the bridge: a task's kind is one of
 * TASK_KINDS (an unknown one is refused by the router as output outside the contract), and
 * `proxy:changed` is an upsert with its proxy or a removal without one, its event named.
 */
import { describe, expect, it } from 'vitest';
import { createRouter, type Handlers } from '../../../electron/ipc/router.js';
import { events } from '../../../shared/ipc.js';
import { ProxyChangedSchema } from '../../../shared/proxy-changed.js';
import { TASK_KINDS, TaskSchema } from '../../../shared/tasks.js';
import { proxyRecord, task } from '../renderer/fake-bridge.js';

const routerListing = (tasks: unknown[]) => createRouter({ 'tasks:list': () => tasks } as unknown as Handlers);

describe('Task.kind', () => {
  it('passes the router for every kind the services start', async () => {
    const listed = TASK_KINDS.map((kind, i) => task({ id: `t${i}`, kind }));
    expect(await routerListing(listed).invoke('tasks:list', undefined)).toEqual({ ok: true, value: listed });
  });

  it('is refused at the IPC boundary when nobody listed it', async () => {
    const answer = await routerListing([{ ...task(), kind: 'proxies:teleport' }]).invoke('tasks:list', undefined);
    expect(answer.ok).toBe(false);
    expect(!answer.ok && answer.error.message).toMatch(
      /^internal error: tasks:list returned data outside its contract \(.*kind/,
    );
    expect(TaskSchema.safeParse({ ...task(), kind: 'test' }).success).toBe(false);
  });
});

describe('proxy:changed', () => {
  const proxy = proxyRecord();
  const upsert = { host: 'edge-a', domain: proxy.id, name: proxy.name, event: 'STARTED', removed: false, proxy };
  const removal = { host: 'edge-a', domain: proxy.id, name: proxy.name, event: 'DELETED', removed: true };

  it('is the events table entry, and its JSON is what the backend always sent', () => {
    expect(events['proxy:changed']).toBe(ProxyChangedSchema);
    expect(ProxyChangedSchema.parse(JSON.parse(JSON.stringify(upsert)))).toEqual(upsert);
    expect(ProxyChangedSchema.parse(JSON.parse(JSON.stringify(removal)))).toEqual(removal);
    // A removal libvirt reports of a domain this backend never listed has no name.
    expect(
      ProxyChangedSchema.safeParse({ host: 'edge-a', domain: 'ep-x', event: 'UNDEFINED', removed: true }).success,
    ).toBe(true);
  });

  it('tells the two apart by removed: an upsert needs its proxy and name, a removal carries no proxy', () => {
    const parsed = ProxyChangedSchema.parse(upsert);
    expect(parsed.removed === false && parsed.proxy.name).toBe(proxy.name);
    expect(ProxyChangedSchema.safeParse({ ...upsert, proxy: undefined }).success).toBe(false);
    expect(ProxyChangedSchema.safeParse({ ...upsert, name: undefined }).success).toBe(false);
    expect(ProxyChangedSchema.parse({ ...removal, proxy })).not.toHaveProperty('proxy');
  });

  it("refuses an event name outside the list (libvirt's lifecycle events and what the app did)", () => {
    for (const event of ['LAUNCHED', 'REPLACED', 'LABELLED', 'RECONCILED', 'UNKNOWN', 'CRASHED'])
      expect(ProxyChangedSchema.safeParse({ ...upsert, event }).success, event).toBe(true);
    for (const event of ['LABELS_SAVED', 'started', ''])
      expect(ProxyChangedSchema.safeParse({ ...upsert, event }).success, event).toBe(false);
  });
});
