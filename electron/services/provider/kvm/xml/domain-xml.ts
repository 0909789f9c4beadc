/**
 * The domain XML of a proxy VM: a pure function of its inputs. Disks are pool volumes
 * (`<disk type="volume">`), never host paths, so that the inputs are names and no path
 * lookup is needed. The NoCloud seed is a read-only CD-ROM on virtio-scsi: Debian's and
 * Ubuntu's cloud kernels have no AHCI driver, so a SATA CD-ROM (q35's default) would be
 * invisible to them and cloud-init would silently find no datasource.
 */
import { create } from 'xmlbuilder2';
import type { XMLBuilder } from 'xmlbuilder2/lib/interfaces.js';
import { z } from 'zod';
import { hasControlCharacters } from '../../../../../shared/text.js';
import { type InstanceMetadataInput, appendInstanceMetadata } from './metadata.js';

/**
 * CPU model. `host-model` (the default under KVM) gives the guest the host's features in
 * a migratable form; `host-passthrough` is opt-in only (it aborts QEMU on some nested
 * hosts); `default` leaves QEMU's own model (the default under TCG).
 */
export const CPU_MODES = ['default', 'host-model', 'host-passthrough', 'maximum'] as const;
export type CpuMode = (typeof CPU_MODES)[number];

const safeName = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._+-]*$/, 'must be letters, digits, ".", "_", "+" and "-"');

export const DomainSpecSchema = z.object({
  /** The libvirt domain name (the instance id). */
  name: safeName,
  uuid: z.uuid(),
  title: z.string().max(200).optional(),
  vcpus: z.int().min(1).max(1024),
  memoryMiB: z.int().min(128),
  domainType: z.enum(['kvm', 'qemu']),
  cpuMode: z.enum(CPU_MODES).optional(),
  pool: safeName,
  rootVolume: safeName,
  seedVolume: safeName,
  /** The NIC: on a libvirt network, or on a host bridge. */
  nic: z.union([z.object({ network: safeName }), z.object({ bridge: safeName })]),
  mac: z.string().regex(/^52:54:00(:[0-9a-f]{2}){3}$/, 'must be a 52:54:00 MAC in lowercase'),
  /** Our metadata element: what makes the domain a proxy. Absent for the baking domain (bake.ts), which is none. */
  metadata: z.custom<InstanceMetadataInput>((v) => typeof v === 'object' && v !== null).optional(),
});
export type DomainSpec = z.infer<typeof DomainSpecSchema>;

/** The CPU mode used when a spec names none: host-model under KVM, QEMU's default under TCG. */
export function defaultCpuMode(domainType: 'kvm' | 'qemu'): CpuMode {
  return domainType === 'kvm' ? 'host-model' : 'default';
}

export function buildDomainXml(input: DomainSpec): string {
  const spec = DomainSpecSchema.parse(input);
  if (spec.title !== undefined && hasControlCharacters(spec.title))
    throw new Error('domain title must be a single line without control characters');
  const domain = create().ele('domain', { type: spec.domainType });
  domain.ele('name').txt(spec.name);
  domain.ele('uuid').txt(spec.uuid);
  if (spec.title) domain.ele('title').txt(spec.title);
  if (spec.metadata) appendInstanceMetadata(domain.ele('metadata'), spec.metadata);
  domain.ele('memory', { unit: 'MiB' }).txt(String(spec.memoryMiB));
  domain.ele('currentMemory', { unit: 'MiB' }).txt(String(spec.memoryMiB));
  domain.ele('vcpu', { placement: 'static' }).txt(String(spec.vcpus));
  const os = domain.ele('os');
  os.ele('type', { arch: 'x86_64', machine: 'q35' }).txt('hvm');
  os.ele('boot', { dev: 'hd' });
  const features = domain.ele('features');
  features.ele('acpi');
  features.ele('apic');
  const cpuMode = spec.cpuMode ?? defaultCpuMode(spec.domainType);
  if (cpuMode !== 'default') domain.ele('cpu', { mode: cpuMode });
  domain.ele('clock', { offset: 'utc' });
  domain.ele('on_poweroff').txt('destroy');
  domain.ele('on_reboot').txt('restart');
  domain.ele('on_crash').txt('destroy');
  appendDevices(domain.ele('devices'), spec);
  return domain.end({ prettyPrint: true, headless: true, wellFormed: true });
}

function appendDevices(devices: XMLBuilder, spec: DomainSpec): void {
  const root = devices.ele('disk', { type: 'volume', device: 'disk' });
  root.ele('driver', { name: 'qemu', type: 'qcow2', discard: 'unmap' });
  root.ele('source', { pool: spec.pool, volume: spec.rootVolume });
  root.ele('target', { dev: 'vda', bus: 'virtio' });

  devices.ele('controller', { type: 'scsi', index: '0', model: 'virtio-scsi' });
  const seed = devices.ele('disk', { type: 'volume', device: 'cdrom' });
  seed.ele('driver', { name: 'qemu', type: 'raw' });
  seed.ele('source', { pool: spec.pool, volume: spec.seedVolume });
  seed.ele('target', { dev: 'sda', bus: 'scsi' });
  seed.ele('readonly');

  const nic =
    'network' in spec.nic
      ? devices.ele('interface', { type: 'network' })
      : devices.ele('interface', { type: 'bridge' });
  nic.ele('mac', { address: spec.mac });
  nic.ele('source', 'network' in spec.nic ? { network: spec.nic.network } : { bridge: spec.nic.bridge });
  nic.ele('model', { type: 'virtio' });

  devices.ele('serial', { type: 'pty' }).ele('target', { port: '0' });
  devices.ele('console', { type: 'pty' }).ele('target', { type: 'serial', port: '0' });
  devices.ele('channel', { type: 'unix' }).ele('target', { type: 'virtio', name: 'org.qemu.guest_agent.0' });
  devices.ele('rng', { model: 'virtio' }).ele('backend', { model: 'random' }).txt('/dev/urandom');
  devices.ele('memballoon', { model: 'virtio' });
}
