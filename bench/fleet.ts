/**
 * (e) Listing a fleet of 500 proxies on one host: ours (the `proxies list` path: one
 * CONNECT_GET_ALL_DOMAIN_STATS for every name and state, then per domain our metadata
 * element by namespace URI, or the whole XML where a NIC is needed for an address, all
 * pipelined, then the metadata parsed) against python3-libvirt doing the same questions one
 * call at a time (XML, state, metadata element). The fleet is defined, not started (500
 * guests do not boot on a test machine), so our listing reads elements only; the whole-XML
 * form, what 500 running proxies cost, is measured beside it.
 */
import { withDefaults } from '../shared/config.js';
import { DomainUndefine, LibvirtClient, findDomainByName } from '../electron/libvirt/index.js';
import { ClientApi } from '../electron/services/provider/kvm/client-api.js';
import { fleetMetadataOf, metadataOf } from '../electron/services/provider/kvm/fleet.js';
import { METADATA_NS } from '../electron/services/provider/kvm/xml/metadata.js';
import { renderProxy, resolveSpec } from '../electron/services/provider/kvm/render.js';
import { LocalSocketDialer } from '../electron/transport/index.js';
import type { BenchEnv } from './environment.js';
import { SYSTEM_PYTHON, run } from './peers.js';

export const FLEET_SIZE = 500;
const PREFIX = 'egtest-fleet-';

async function open(env: BenchEnv): Promise<LibvirtClient> {
  return LibvirtClient.connect(new LocalSocketDialer(env.EGRESS_TEST_SOCKET), { uri: 'qemu:///system' });
}

/** Defines `count` shut-off proxy domains with our metadata (no volumes: listing reads only domains). */
export async function defineFleet(env: BenchEnv, count = FLEET_SIZE): Promise<string[]> {
  const client = await open(env);
  const config = withDefaults({
    hosts: [{ name: 'local', address: 'local', pool: env.EGRESS_TEST_POOL, network: 'egtest-net' }],
    machineTypes: { small: { vcpus: 1, memoryMiB: 256 } },
    images: { test: { url: 'file:///dev/null', sha256: 'f'.repeat(64) } },
    defaults: { machineType: 'small', image: 'test' },
  });
  const names: string[] = [];
  try {
    await Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const spec = resolveSpec({ name: `${PREFIX}${String(i).padStart(3, '0')}` }, config, config.hosts[0]!);
        const r = renderProxy(spec, {
          domainType: 'qemu',
          basePath: '/var/tmp/egress-bench/none.qcow2',
          createdAt: new Date(),
        });
        await client.call('DOMAIN_DEFINE_XML_FLAGS', { xml: r.domainXml, flags: 0 });
        names.push(r.id);
      }),
    );
    return names;
  } finally {
    await client.close();
  }
}

export async function undefineFleet(env: BenchEnv, names: readonly string[]): Promise<void> {
  const client = await open(env);
  try {
    await Promise.all(
      names.map(async (name) => {
        const dom = await findDomainByName(client, name);
        if (dom) await client.call('DOMAIN_UNDEFINE_FLAGS', { dom, flags: DomainUndefine.NVRAM });
      }),
    );
  } finally {
    await client.close();
  }
}

/** Milliseconds for our listing of every domain (the fleet listing's calls and parse), and how many carried our metadata. */
export async function oursListMs(env: BenchEnv): Promise<{ ms: number; proxies: number }> {
  const client = await open(env);
  try {
    const t = performance.now();
    const domains = await new ClientApi(client).listFleetDomains(METADATA_NS);
    const proxies = domains.filter((d) => fleetMetadataOf(d) !== undefined).length;
    return { ms: performance.now() - t, proxies };
  } finally {
    await client.close();
  }
}

/** The same with every domain's whole XML (list, XMLs pipelined, one stats call): what a listing costs when every proxy is running. */
export async function oursWholeXmlListMs(env: BenchEnv): Promise<{ ms: number; proxies: number }> {
  const client = await open(env);
  try {
    const t = performance.now();
    const domains = await new ClientApi(client).listDomains();
    const proxies = domains.filter((d) => metadataOf(d) !== undefined).length;
    return { ms: performance.now() - t, proxies };
  } finally {
    await client.close();
  }
}

/** Milliseconds for python3-libvirt: list, then per domain XML, state and metadata element, sequentially. */
export function pythonListMs(): { ms: number; proxies: number } {
  const script = `
import libvirt, time
c = libvirt.open('qemu:///system')
t = time.perf_counter()
n = 0
for d in c.listAllDomains(0):
    d.XMLDesc(0)
    d.state()
    try:
        d.metadata(libvirt.VIR_DOMAIN_METADATA_ELEMENT, '${METADATA_NS}')
        n += 1
    except libvirt.libvirtError:
        pass
print((time.perf_counter() - t) * 1000, n)
c.close()
`;
  const [ms, n] = run(SYSTEM_PYTHON, ['-c', script]).trim().split(' ');
  return { ms: Number(ms), proxies: Number(n) };
}
