/**
 * Domain events from the real daemon (test driver): lifecycle events on the wire, per-domain
 * filtering, deregistration, the async iterator; metadata changes (procedure 379).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LibvirtClient } from '../../electron/libvirt/client.js';
import type { LifecycleEvent, MetadataChangeEvent } from '../../electron/libvirt/events.js';
import { setMetadataElement } from '../../electron/libvirt/helpers.js';
import { MessageType } from '../../electron/libvirt/packet.js';
import { type Tap, bestEffort, connect, egtestName, testDomainXml, until } from './client-support.js';

const taps: Tap[] = [];
let client: LibvirtClient;
const names: string[] = [];

beforeAll(async () => {
  client = await connect('test:///default', {}, taps);
});

afterAll(async () => {
  for (const name of names) {
    await bestEffort(
      async () => client.call('DOMAIN_DESTROY', { dom: await client.call('DOMAIN_LOOKUP_BY_NAME', { name }) }),
      async () =>
        client.call('DOMAIN_UNDEFINE_FLAGS', { dom: await client.call('DOMAIN_LOOKUP_BY_NAME', { name }), flags: 0 }),
    );
  }
  await client.close();
});

function newName(): string {
  const name = egtestName('ev');
  names.push(name);
  return name;
}

describe('lifecycle events', () => {
  it('arrive as MESSAGE packets of procedure 318 with serial 1, and filter by domain', async () => {
    const a = newName();
    const b = newName();
    const domA = await client.call('DOMAIN_DEFINE_XML', { xml: testDomainXml(a) });
    const forA: LifecycleEvent[] = [];
    const all: LifecycleEvent[] = [];
    const unsubA = await client.onLifecycle((e) => forA.push(e), { dom: domA });
    const unsubAll = await client.onLifecycle((e) => {
      if (names.includes(e.dom.name)) all.push(e);
    });
    const domB = await client.call('DOMAIN_DEFINE_XML', { xml: testDomainXml(b) });
    await client.call('DOMAIN_CREATE', { dom: domA });
    await client.call('DOMAIN_CREATE', { dom: domB });
    await until(() => all.length >= 3);
    expect(forA.map((e) => [e.dom.name, e.eventName])).toEqual([[a, 'STARTED']]);
    expect(all.map((e) => `${e.dom.name === a ? 'a' : 'b'}:${e.eventName}`)).toEqual([
      'b:DEFINED',
      'a:STARTED',
      'b:STARTED',
    ]);
    // The started domain's handle carries its new id.
    expect(forA[0]!.dom.id).toBeGreaterThan(0);
    const messages = taps[0]!.headers.filter((h) => h.type === MessageType.MESSAGE && h.proc === 318);
    expect(messages.length).toBeGreaterThanOrEqual(3);
    expect(new Set(messages.map((h) => h.serial))).toEqual(new Set([1]));
    await unsubA();
    await unsubAll();
  });

  it('stop arriving after the last subscriber leaves (the daemon is told: 317)', async () => {
    const seen: LifecycleEvent[] = [];
    const unsubscribe = await client.onLifecycle((e) => seen.push(e));
    await unsubscribe();
    const before = taps[0]!.headers.filter((h) => h.type === MessageType.MESSAGE && h.proc === 318).length;
    const dom = await client.call('DOMAIN_DEFINE_XML', { xml: testDomainXml(newName()) });
    await client.call('DOMAIN_UNDEFINE_FLAGS', { dom, flags: 0 });
    await client.call('CONNECT_GET_URI');
    await new Promise((r) => setTimeout(r, 100));
    expect(taps[0]!.headers.filter((h) => h.type === MessageType.MESSAGE && h.proc === 318).length).toBe(before);
    expect(seen).toEqual([]);
    expect(taps[0]!.headers.some((h) => h.type === MessageType.REPLY && h.proc === 317 && h.status === 0)).toBe(true);
  });

  it('can be consumed as an async iterator', async () => {
    const name = newName();
    const got: string[] = [];
    const controller = new AbortController();
    const iterating = (async () => {
      for await (const e of client.lifecycleEvents({ signal: controller.signal })) {
        if (e.dom.name !== name) continue;
        got.push(`${e.eventName}/${e.detailName}`);
        if (e.eventName === 'UNDEFINED') break;
      }
    })();
    await new Promise((r) => setTimeout(r, 50));
    const dom = await client.call('DOMAIN_DEFINE_XML', { xml: testDomainXml(name) });
    await client.call('DOMAIN_CREATE', { dom });
    await client.call('DOMAIN_DESTROY', { dom });
    await client.call('DOMAIN_UNDEFINE_FLAGS', { dom, flags: 0 });
    await iterating;
    expect(got).toEqual(['DEFINED/ADDED', 'STARTED/BOOTED', 'STOPPED/DESTROYED', 'UNDEFINED/REMOVED']);
  });
});

describe('metadata-change events', () => {
  it('arrive as procedure 379 for an element set or removed, in the running domain or in the definition only', async () => {
    const name = newName();
    const dom = await client.call('DOMAIN_DEFINE_XML', { xml: testDomainXml(name) });
    const seen: MetadataChangeEvent[] = [];
    const lifecycle: LifecycleEvent[] = [];
    const unsubscribe = await client.onMetadataChange((e) => seen.push(e), { dom });
    const unsubscribeLifecycle = await client.onLifecycle((e) => lifecycle.push(e), { dom });
    const uri = 'urn:egress-desk:test-events:v1';
    // Defined, not running: the definition only (CONFIG, 2).
    await setMetadataElement(client, dom, { uri, key: 'ev', xml: '<a/>', flags: 2 });
    await until(() => seen.length >= 1);
    const running = await (async () => {
      await client.call('DOMAIN_CREATE', { dom });
      return client.call('DOMAIN_LOOKUP_BY_NAME', { name });
    })();
    await setMetadataElement(client, running, { uri, key: 'ev', xml: '<b/>', flags: 1 | 2 });
    await setMetadataElement(client, running, { uri, key: 'ev', xml: null, flags: 1 | 2 });
    await until(() => seen.length >= 3);
    expect(seen.map((e) => [e.dom.name, e.type, e.nsuri])).toEqual([
      [name, 2, uri],
      [name, 2, uri],
      [name, 2, uri],
    ]);
    // The lifecycle subscription on the same connection is a separate registration and still sees its own events.
    expect(lifecycle.map((e) => e.eventName)).toContain('STARTED');
    const messages = taps[0]!.headers.filter((h) => h.type === MessageType.MESSAGE && h.proc === 379);
    expect(messages.length).toBeGreaterThanOrEqual(3);
    await unsubscribe();
    await unsubscribeLifecycle();
  });
});
