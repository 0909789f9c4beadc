/**
 * What a domain's own XML says about where its parts are: the pool volumes its disks use
 * and the MAC address and network of each interface. The XML is the truth about a proxy
 * that exists (docs/provider.md): the config's pool or network may have changed since it
 * was launched, and two host entries may reach the same hypervisor with different pools.
 */
import { XMLParser } from 'fast-xml-parser';
import { z } from 'zod';
import { instanceVolumes } from './names.js';

/** A disk backed by a storage pool volume (`<disk type="volume"><source pool volume/>`). */
export interface VolumeRef {
  pool: string;
  volume: string;
}

export interface DomainFacts {
  volumes: VolumeRef[];
  /** Lowercase MAC addresses, with the libvirt network each one is on (absent for bridges). */
  interfaces: Array<{ mac: string; network?: string }>;
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  parseTagValue: false,
  parseAttributeValue: false,
  processEntities: true,
  // Only the elements read below can repeat; everything else is ignored.
  isArray: (name) => name === 'disk' || name === 'interface',
});

const Attr = z.string();
const DiskSchema = z
  .object({
    '@type': Attr.optional(),
    source: z.object({ '@pool': Attr.optional(), '@volume': Attr.optional() }).loose().optional(),
  })
  .loose();
const InterfaceSchema = z
  .object({
    mac: z.object({ '@address': Attr }).loose().optional(),
    source: z.object({ '@network': Attr.optional() }).loose().optional(),
  })
  .loose();
const DomainSchema = z.object({
  domain: z
    .object({
      devices: z
        .object({ disk: z.array(DiskSchema).default([]), interface: z.array(InterfaceSchema).default([]) })
        .loose()
        .optional(),
    })
    .loose(),
});

/** Reads the volumes and interfaces of a domain XML; throws on XML that is not a domain. */
export function domainFacts(xml: string): DomainFacts {
  const parsed = DomainSchema.parse(parser.parse(xml));
  const devices = parsed.domain.devices ?? { disk: [], interface: [] };
  const volumes: VolumeRef[] = [];
  for (const disk of devices.disk) {
    const pool = disk.source?.['@pool'];
    const volume = disk.source?.['@volume'];
    if (disk['@type'] === 'volume' && pool && volume) volumes.push({ pool, volume });
  }
  const interfaces: DomainFacts['interfaces'] = [];
  for (const iface of devices.interface) {
    const mac = iface.mac?.['@address'];
    if (!mac) continue;
    const network = iface.source?.['@network'];
    interfaces.push({ mac: mac.toLowerCase(), ...(network ? { network } : {}) });
  }
  return { volumes, interfaces };
}

/**
 * The volumes a proxy's domain owns: the pool volumes its XML's disks name that carry its
 * own instance volume names (the root overlay and the seed). A shared base volume, or a
 * disk someone attached by hand, is never one of them.
 */
export function ownVolumes(domain: { name: string; xml: string }): VolumeRef[] {
  const mine = new Set(Object.values(instanceVolumes(domain.name)));
  return domainFacts(domain.xml).volumes.filter((v) => mine.has(v.volume));
}
