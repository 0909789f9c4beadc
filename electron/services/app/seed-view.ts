/**
 * The seed a proxy booted with, rebuilt from its metadata and the config (libvirt offers
 * no cheap way to read a volume back, and the seed holds the password anyway). The
 * password never enters the rebuild: a placeholder does, which is then masked. Whether
 * the rebuild is exact is checked against the spec hash recorded at launch.
 */
import type { ResolvedKVMConfig } from '../../../shared/config.js';
import { MASK } from '../../../shared/proxies.js';
import type { ProxyCredentials } from '../../../shared/proxy.js';
import type { InstanceMetadata } from '../provider/kvm/xml/metadata.js';
import { renderProxy, resolveSpec, specHash } from '../provider/kvm/render.js';

const PLACEHOLDER = 'egress-desk-masked-password';

export interface SeedView {
  userData: string;
  metaData: string;
  vendorData: string;
  exact: boolean;
  note?: string;
}

/** The masked seed, or undefined when the config no longer knows the proxy's host, machine type or image. */
export function seedView(
  metadata: InstanceMetadata,
  config: ResolvedKVMConfig,
  stored: ProxyCredentials | undefined,
): SeedView | undefined {
  const host = config.hosts.find((h) => h.name === metadata.host);
  if (!host || !config.machineTypes[metadata.machineType] || !config.images[metadata.image.name]) return undefined;
  const username = stored?.username ?? 'egress';
  // Stored credentials mean authentication was on; without them, try both.
  const variants: Array<ProxyCredentials | undefined> = stored
    ? [{ username, password: PLACEHOLDER }]
    : [undefined, { username, password: PLACEHOLDER }];
  let first: SeedView | undefined;
  for (const credentials of variants) {
    let resolved;
    try {
      resolved = resolveSpec(
        {
          name: metadata.name,
          host: host.name,
          machineType: metadata.machineType,
          image: metadata.image.name,
          port: metadata.port,
          ...(metadata.kind ? { kind: metadata.kind } : {}),
          ...(credentials ? { credentials } : { auth: false }),
        },
        config,
        host,
      );
    } catch {
      return undefined;
    }
    const rendered = renderProxy(resolved, {
      domainType: 'kvm',
      basePath: '/unused',
      createdAt: new Date(metadata.createdAt),
    });
    const mask = (text: string) => text.split(PLACEHOLDER).join(MASK);
    const exact = specHash(resolved) === metadata.specHash;
    const view: SeedView = {
      userData: mask(rendered.userData),
      metaData: rendered.metaData,
      vendorData: mask(rendered.vendorData),
      exact,
    };
    if (exact) return view;
    first ??= {
      ...view,
      note: 'rebuilt from the metadata and the current config, which differ from the launch (a changed vendor-data, image or machine type, or a custom allow list): the guest may have got something else',
    };
  }
  return first;
}
