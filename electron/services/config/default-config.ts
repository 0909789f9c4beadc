/**
 * The config a first start gets: this machine's libvirt as host `local`, two machine
 * types, and no image. No image because a default image must carry a digest taken from
 * its publisher's own checksum file, and none could be established when this was written
 * (no network); a made-up digest would be worse than none. The first-run flow asks for
 * an image instead (`egress-desk images add`, or the app's Images view).
 */
import type { ProviderConfig } from '../../../shared/config.js';

export function defaultConfig(): ProviderConfig {
  return {
    type: 'kvm',
    kvm: {
      hosts: [{ name: 'local', address: 'local' }],
      machineTypes: {
        small: { vcpus: 1, memoryMiB: 512, diskGiB: 10 },
        medium: { vcpus: 2, memoryMiB: 2048, diskGiB: 20 },
      },
      images: {},
      defaults: { machineType: 'small' },
      proxy: { port: 3128 },
    },
  };
}
