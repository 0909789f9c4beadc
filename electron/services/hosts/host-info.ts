/**
 * A connected host's facts, gathered with the calls in flight together (one round trip
 * for the independent ones, then one more per pool), so a host with many pools does not
 * take one round trip per question.
 */
import { messageOf } from '../../../shared/errors.js';
import type { HostInfo, HostStatus } from '../../../shared/hosts.js';
import {
  type Caller,
  LibvirtError,
  ListPoolsOrNetworks,
  formatVersion,
  listAllDomains,
  listAllNetworks,
} from '../../libvirt/index.js';
import { readPools } from './host-load.js';

/** Whether libvirt offers KVM here. A host without /dev/kvm answers domain capabilities for kvm with an error. */
export async function kvmOffered(client: Caller): Promise<boolean> {
  try {
    const caps = await client.call('CONNECT_GET_DOMAIN_CAPABILITIES', {
      emulatorbin: null,
      arch: 'x86_64',
      machine: null,
      virttype: 'kvm',
      flags: 0,
    });
    return /<domain>\s*kvm\s*<\/domain>/.test(caps);
  } catch (err) {
    if (err instanceof LibvirtError) return false;
    throw err;
  }
}

/**
 * The hypervisor's identity: libvirt's host UUID (`<host><uuid>` of the capabilities; the
 * SMBIOS system UUID, or libvirtd.conf's host_uuid). Two host entries with the same one
 * reach the same hypervisor (docs/provider.md).
 */
export async function hostUuid(client: Caller): Promise<string> {
  const caps = await client.call('CONNECT_GET_CAPABILITIES');
  const uuid = /<host>\s*<uuid>\s*([0-9a-fA-F-]{32,36})\s*<\/uuid>/.exec(caps)?.[1];
  if (!uuid) throw new Error('the host capabilities carry no <host><uuid>');
  return uuid.toLowerCase();
}

export async function collectHostInfo(client: Caller): Promise<HostInfo> {
  const [hostname, lib, type, version, node, free, pools, networks, activeNetworks, domains, kvm, uuid] =
    await Promise.all([
      client.call('CONNECT_GET_HOSTNAME'),
      client.call('CONNECT_GET_LIB_VERSION'),
      client.call('CONNECT_GET_TYPE'),
      client.call('CONNECT_GET_VERSION'),
      client.call('NODE_GET_INFO'),
      client.call('NODE_GET_FREE_MEMORY'),
      readPools(client),
      listAllNetworks(client),
      listAllNetworks(client, ListPoolsOrNetworks.ACTIVE),
      listAllDomains(client),
      kvmOffered(client),
      hostUuid(client).catch(() => undefined),
    ]);
  const active = new Set(activeNetworks.map((n) => n.name));
  return {
    hostname,
    libvirtVersion: formatVersion(lib),
    hypervisor: type,
    hypervisorVersion: formatVersion(version),
    cpuModel: node.model,
    cpus: node.cpus,
    memoryBytes: Number(node.memory) * 1024,
    freeMemoryBytes: Number(free),
    kvm,
    ...(uuid ? { uuid } : {}),
    pools,
    networks: networks.map((n) => ({ name: n.name, active: active.has(n.name) })),
    domainCount: domains.length,
  };
}

/** What {@link statusWithInfo} asks of a set of hosts (the app's HostDirectory; the CLI's connections with collectHostInfo). */
export interface HostFacts {
  status(name: string): HostStatus;
  /** Connects when needed and gathers the host's facts; rejects with why it cannot. */
  info(name: string): Promise<HostInfo>;
}

/**
 * A host's status with its facts, as `hosts:list` and `hosts status` report it. A failure
 * after connecting (a call that failed) leaves the state "connected": it is reported as an
 * error with its message; any other failure is the status itself (it says why).
 */
export async function statusWithInfo(hosts: HostFacts, name: string): Promise<HostStatus> {
  try {
    const info = await hosts.info(name);
    return { ...hosts.status(name), info };
  } catch (err) {
    const status = hosts.status(name);
    if (status.state === 'connected') return { ...status, state: 'error', message: messageOf(err) };
    return status;
  }
}
