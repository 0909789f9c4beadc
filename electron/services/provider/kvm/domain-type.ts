/**
 * Which domain type a launch defines: the host's setting, with `auto` decided by asking
 * libvirt whether it offers KVM (a host without /dev/kvm does not, and refuses
 * `<domain type="kvm">`). One decision for the provider and the tests that define domains
 * on a real host, so neither assumes what a particular machine has.
 */
import type { DOMAIN_TYPES } from '../../../../shared/config.js';
import type { LibvirtApi } from './libvirt-api.js';

/** The domain types a definition can carry (`auto` is resolved before that). */
export type ConcreteDomainType = 'kvm' | 'qemu';

/** `kvm` or `qemu` as set; for `auto`, `kvm` when the host offers it, else `qemu` (TCG). */
export async function resolveDomainType(
  setting: (typeof DOMAIN_TYPES)[number],
  host: Pick<LibvirtApi, 'kvmOffered'>,
): Promise<ConcreteDomainType> {
  if (setting !== 'auto') return setting;
  return (await host.kvmOffered()) ? 'kvm' : 'qemu';
}
