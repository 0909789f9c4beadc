/**
 * Fleet listings keep what they read while the daemon's events say nothing changed
 * (fleet-read-cache.ts), against the real daemon's test driver, with a second connection
 * playing "another client": an unchanged domain costs no call on the next listing; an
 * element set by the other client, a definition replaced, and an element set in a running
 * domain are all seen by the listing after their event.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LibvirtClient } from '../../electron/libvirt/client.js';
import { setMetadataElement } from '../../electron/libvirt/helpers.js';
import { formatUuid } from '../../electron/libvirt/types.js';
import { ClientApi } from '../../electron/services/provider/kvm/client-api.js';
import type { FleetDomain } from '../../electron/services/provider/kvm/libvirt-api.js';
import { bestEffort, connect, egtestName, testDomainXml, until } from './client-support.js';

const URI = 'urn:egress-desk:test-fleet-reads:v1';
let reader: LibvirtClient;
let other: LibvirtClient;
const names = [egtestName('fr-a'), egtestName('fr-b'), egtestName('fr-run')];
/** Per-domain calls the reader made for our domains, by procedure. */
const perDomainCalls: string[] = [];

function withElement(name: string, value: string, uuid?: string): string {
  const xml = testDomainXml(name).replace(
    '</domain>',
    `<metadata><fr:proxy xmlns:fr='${URI}'>${value}</fr:proxy></metadata></domain>`,
  );
  return uuid ? xml.replace('</name>', `</name><uuid>${uuid}</uuid>`) : xml;
}

beforeAll(async () => {
  reader = await connect('test:///default');
  other = await connect('test:///default');
  const call = reader.call.bind(reader) as (name: string, args?: unknown) => Promise<unknown>;
  const spy = (name: string, args?: { dom?: { name: string } }) => {
    if (args?.dom && names.includes(args.dom.name)) perDomainCalls.push(`${name} ${args.dom.name}`);
    return call(name, args);
  };
  reader.call = spy as unknown as LibvirtClient['call'];
  for (const name of names) await other.call('DOMAIN_DEFINE_XML', { xml: withElement(name, 'one') });
  await other.call('DOMAIN_CREATE', { dom: await other.call('DOMAIN_LOOKUP_BY_NAME', { name: names[2]! }) });
});

afterAll(async () => {
  for (const name of names) {
    await bestEffort(
      async () => other.call('DOMAIN_DESTROY', { dom: await other.call('DOMAIN_LOOKUP_BY_NAME', { name }) }),
      async () =>
        other.call('DOMAIN_UNDEFINE_FLAGS', { dom: await other.call('DOMAIN_LOOKUP_BY_NAME', { name }), flags: 0 }),
    );
  }
  await reader?.close();
  await other?.close();
});

const ours = (listing: FleetDomain[]) => new Map(listing.filter((d) => names.includes(d.name)).map((d) => [d.name, d]));
const shown = (d: FleetDomain | undefined) => /<(?:\w+:)?proxy[^>]*>([^<]*)</.exec(d?.metadata ?? d?.xml ?? '')?.[1];

describe('fleet listings over one connection', () => {
  const api = () => new ClientApi(reader);
  let lister: ClientApi;

  it('read each domain once, then nothing while nothing changes', async () => {
    // The test driver is shared by every connection to test:///default: the other client's domains are seen.
    lister = api();
    const first = ours(await lister.listFleetDomains(URI));
    expect([...first.keys()].sort()).toEqual([...names].sort());
    expect(first.get(names[0]!)).toMatchObject({ state: 'shutoff' });
    expect(first.get(names[2]!)).toMatchObject({ state: 'running' });
    expect(names.map((n) => shown(first.get(n)))).toEqual(['one', 'one', 'one']);
    expect(perDomainCalls.sort()).toEqual(
      [`DOMAIN_GET_METADATA ${names[0]}`, `DOMAIN_GET_METADATA ${names[1]}`, `DOMAIN_GET_XML_DESC ${names[2]}`].sort(),
    );
    perDomainCalls.length = 0;
    const second = ours(await lister.listFleetDomains(URI));
    expect(names.map((n) => shown(second.get(n)))).toEqual(['one', 'one', 'one']);
    expect(perDomainCalls).toEqual([]);
  });

  it('see an element another client set, a definition it replaced, and an element set in a running domain', async () => {
    const dom = (name: string) => other.call('DOMAIN_LOOKUP_BY_NAME', { name });
    await setMetadataElement(other, await dom(names[0]!), {
      uri: URI,
      key: 'fr',
      xml: `<proxy xmlns='${URI}'>two</proxy>`,
      flags: 2,
    });
    await other.call('DOMAIN_DEFINE_XML', {
      xml: withElement(names[1]!, 'redefined', formatUuid((await dom(names[1]!)).uuid)),
    });
    await setMetadataElement(other, await dom(names[2]!), {
      uri: URI,
      key: 'fr',
      xml: `<proxy xmlns='${URI}'>live</proxy>`,
      flags: 1 | 2,
    });
    let latest = new Map<string, FleetDomain>();
    perDomainCalls.length = 0;
    // Events are asynchronous: the listing after each one's arrival shows the change.
    await until(
      () => names.map((n) => shown(latest.get(n))).join() === 'two,redefined,live',
      5_000,
      async () => {
        latest = ours(await lister.listFleetDomains(URI));
      },
    );
    // Only the changed domains were read again, each once its event had arrived (no listing read an unchanged one).
    expect(new Set(perDomainCalls)).toEqual(
      new Set([
        `DOMAIN_GET_METADATA ${names[0]}`,
        `DOMAIN_GET_METADATA ${names[1]}`,
        `DOMAIN_GET_XML_DESC ${names[2]}`,
      ]),
    );
    perDomainCalls.length = 0;
    await lister.listFleetDomains(URI);
    expect(perDomainCalls).toEqual([]);
  });

  it('read everything again on a new connection (a reconnect forgets what the old one kept)', async () => {
    perDomainCalls.length = 0;
    await api().listFleetDomains(URI);
    expect(perDomainCalls.length).toBe(3);
  });
});
