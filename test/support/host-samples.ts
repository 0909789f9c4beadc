/** A resolved KVM host for the tests that need one without a config file to resolve. */
import type { ResolvedKVMHost } from '../../shared/config.js';

/** A host: by default `desk`, this machine (`local`) on the system libvirt socket, pool `default`; `over` replaces fields. */
export function sampleHost(over: Partial<ResolvedKVMHost> = {}): ResolvedKVMHost {
  return {
    name: 'desk',
    address: 'local',
    socketPath: '/run/libvirt/libvirt-sock',
    pool: 'default',
    domainType: 'auto',
    ...over,
  };
}
