import { describe, expect, it } from 'vitest';
import { decodeAll, encodeToBuffer } from '../../../electron/libvirt/codec.js';
import { ConnectionClosedError, ErrorCode, LibvirtError } from '../../../electron/libvirt/errors.js';
import type { LifecycleEvent } from '../../../electron/libvirt/events.js';
import { MessageType } from '../../../electron/libvirt/packet.js';
import { procedures } from '../../../electron/libvirt/procedures.js';
import { type FakeDaemon, clientAndDaemon, sleep } from './support/fake-daemon.js';

const vm1 = { name: 'vm1', uuid: Buffer.alloc(16, 1), id: -1 };
const vm2 = { name: 'vm2', uuid: Buffer.alloc(16, 2), id: 4 };

function eventDaemon(
  daemon: FakeDaemon,
  features: Record<number, boolean> = { 14: true },
): { registered: number[]; deregistered: number[] } {
  const registered: number[] = [];
  const deregistered: number[] = [];
  daemon
    .handle('CONNECT_SUPPORTS_FEATURE', (c, d) => {
      const { feature } = decodeAll(procedures.CONNECT_SUPPORTS_FEATURE.args, c.payload);
      d.replyWith(c, procedures.CONNECT_SUPPORTS_FEATURE.reply, features[feature] ?? false);
    })
    .handle('CONNECT_DOMAIN_EVENT_CALLBACK_REGISTER_ANY', (c, d) => {
      const args = decodeAll(procedures.CONNECT_DOMAIN_EVENT_CALLBACK_REGISTER_ANY.args, c.payload);
      expect(args).toEqual({ eventID: 0, dom: null });
      registered.push(c.header.serial);
      d.replyWith(c, procedures.CONNECT_DOMAIN_EVENT_CALLBACK_REGISTER_ANY.reply, 7);
    })
    .handle('CONNECT_DOMAIN_EVENT_CALLBACK_DEREGISTER_ANY', (c, d) => {
      deregistered.push(decodeAll(procedures.CONNECT_DOMAIN_EVENT_CALLBACK_DEREGISTER_ANY.args, c.payload).callbackID);
      d.reply(c);
    });
  return { registered, deregistered };
}

function sendLifecycle(daemon: FakeDaemon, dom: typeof vm1, event: number, detail: number, callbackID = 7): void {
  // Events carry serial 1 on the wire, whatever call had that serial.
  daemon.send(
    { proc: 318, type: MessageType.MESSAGE, serial: 1 },
    encodeToBuffer(procedures.DOMAIN_EVENT_CALLBACK_LIFECYCLE.args, { callbackID, dom, event, detail }),
  );
}

describe('lifecycle events', () => {
  it('registers once on the first subscriber, delivers decoded events, deregisters when the last leaves', async () => {
    const { client, daemon } = clientAndDaemon();
    const log = eventDaemon(daemon);
    const all: LifecycleEvent[] = [];
    const onlyVm2: LifecycleEvent[] = [];
    const unsubAll = await client.onLifecycle((e) => all.push(e));
    const unsubVm2 = await client.onLifecycle((e) => onlyVm2.push(e), { dom: vm2 });
    expect(log.registered).toHaveLength(1);
    sendLifecycle(daemon, vm1, 0, 0);
    sendLifecycle(daemon, vm2, 5, 1);
    sendLifecycle(daemon, vm2, 2, 0, 99); // someone else's callback id
    await sleep(10);
    expect(all.map((e) => [e.dom.name, e.eventName, e.detailName])).toEqual([
      ['vm1', 'DEFINED', 'ADDED'],
      ['vm2', 'STOPPED', 'DESTROYED'],
    ]);
    expect(onlyVm2).toEqual([{ dom: vm2, event: 5, eventName: 'STOPPED', detail: 1, detailName: 'DESTROYED' }]);
    await unsubVm2();
    expect(log.deregistered).toEqual([]);
    await unsubAll();
    await unsubAll();
    expect(log.deregistered).toEqual([7]);
    sendLifecycle(daemon, vm1, 1, 0);
    await sleep(10);
    expect(all).toHaveLength(2);
    client.destroy();
  });

  it('refuses when the daemon lacks callback events (feature 14)', async () => {
    const { client, daemon } = clientAndDaemon();
    eventDaemon(daemon, {});
    const err = await client.onLifecycle(() => undefined).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LibvirtError);
    expect((err as LibvirtError).code).toBe(ErrorCode.NO_SUPPORT);
    client.destroy();
  });

  it('names unknown event values UNKNOWN instead of failing', async () => {
    const { client, daemon } = clientAndDaemon();
    eventDaemon(daemon);
    const seen: LifecycleEvent[] = [];
    await client.onLifecycle((e) => seen.push(e));
    sendLifecycle(daemon, vm1, 42, 3);
    await sleep(10);
    expect(seen[0]).toMatchObject({ event: 42, eventName: 'UNKNOWN', detail: 3, detailName: undefined });
    client.destroy();
  });

  it('keeps delivering to other listeners when one throws', async () => {
    const { client, daemon } = clientAndDaemon();
    eventDaemon(daemon);
    const seen: string[] = [];
    await client.onLifecycle(() => {
      throw new Error('listener bug');
    });
    await client.onLifecycle((e) => seen.push(e.eventName));
    sendLifecycle(daemon, vm1, 2, 0);
    await sleep(10);
    expect(seen).toEqual(['STARTED']);
    expect(client.closed).toBe(false);
    client.destroy();
  });

  it('works as an async iterator that deregisters on break', async () => {
    const { client, daemon } = clientAndDaemon();
    const log = eventDaemon(daemon);
    const names: string[] = [];
    const iterating = (async () => {
      for await (const e of client.lifecycleEvents({ dom: vm1 })) {
        names.push(e.eventName);
        if (names.length === 2) break;
      }
    })();
    await sleep(10);
    sendLifecycle(daemon, vm2, 2, 0);
    sendLifecycle(daemon, vm1, 2, 0);
    sendLifecycle(daemon, vm1, 5, 0);
    await iterating;
    expect(names).toEqual(['STARTED', 'STOPPED']);
    await sleep(10);
    expect(log.deregistered).toEqual([7]);
    client.destroy();
  });

  it('ends an iterator with ConnectionClosedError when the connection drops', async () => {
    const { client, daemon } = clientAndDaemon();
    eventDaemon(daemon);
    const iterator = client.lifecycleEvents();
    const next = iterator.next();
    await sleep(10);
    daemon.end.destroy();
    await expect(next).rejects.toBeInstanceOf(ConnectionClosedError);
  });
});
