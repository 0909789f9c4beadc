/**
 * A launch's proxy that exists already (launch.ts): the domain of the name on any
 * reachable host, and the claim another process holds on the name while it launches it.
 */
import type { ResolvedKVMHost } from '../../../../../shared/config.js';
import type { ProxySpec } from '../../../../../shared/proxy.js';
import { type ProviderContext, type ProxyRecord, toRecord } from '../context.js';
import { AlreadyExistsError } from '../errors.js';
import type { LibvirtApi } from '../libvirt-api.js';
import { parseInstanceMetadata } from '../xml/metadata.js';
import { resolveSpec, specHash } from '../render.js';

/**
 * The proxy's root volume exists though no domain of that name did a moment ago: another
 * process is launching the same name (or crashed doing so and left it).
 */
export class NameClaimedError extends Error {
  override readonly name = 'NameClaimedError';
  constructor(proxy: string, host: string, pool: string, volume: string, cause: unknown) {
    super(
      `another launch of ${proxy} holds its root volume ${volume} in pool ${pool} on ${host}, and no domain of that name appeared: a launch under way in another process, or the leftovers of one (proxies reconcile finds them)`,
      { cause },
    );
  }
}

/** A domain of the proxy's name, found on `host`. */
export interface ExistingDomain {
  host: ResolvedKVMHost;
  api: LibvirtApi;
  id: string;
  xml: string;
  state: ProxyRecord['state'];
}

/** An existing domain of that instance id on any reachable host (on the entry its metadata names, when several see it). */
export async function findExisting(ctx: ProviderContext, ids: readonly string[]): Promise<ExistingDomain | undefined> {
  const found = await Promise.all(
    ctx.config.hosts.flatMap((host) =>
      ids.map(async (id) => {
        try {
          const api = await ctx.apiFor(host.name);
          const dom = await api.getDomain(id);
          return dom ? { host, api, id, xml: dom.xml, state: dom.state } : undefined;
        } catch {
          // An unreachable host cannot be checked; placement will not choose it either.
          return undefined;
        }
      }),
    ),
  );
  const answers = found.filter((f) => f !== undefined);
  // Two entries may reach one hypervisor: the domain is the one of the entry its metadata names (hypervisors.ts).
  const owned = (f: (typeof answers)[number]): boolean => {
    try {
      return parseInstanceMetadata(f.xml)?.host === f.host.name;
    } catch {
      return false;
    }
  };
  return answers.find(owned) ?? answers[0];
}

/**
 * What a launch makes of a proxy of its name that exists: the same proxy (same host when one
 * was named, same resolved spec), returned as it is, or {@link AlreadyExistsError}. A
 * replacement expects none of its own id: one is an earlier replacement that did not finish.
 */
export function identicalProxy(
  ctx: ProviderContext,
  spec: ProxySpec,
  existing: ExistingDomain,
  replacing: boolean,
): { record: ProxyRecord; reason: string } {
  const meta = parseInstanceMetadata(existing.xml);
  if (replacing)
    throw new AlreadyExistsError(
      spec.name,
      existing.host.name,
      `domain ${existing.id} exists there: an earlier replacement of ${spec.name} did not finish (see it with proxies list; proxies delete removes the one serving, virsh undefine this one)`,
    );
  if (!meta || (spec.host !== undefined && spec.host !== existing.host.name))
    throw new AlreadyExistsError(spec.name, existing.host.name);
  const hash = specHash(resolveSpec(spec, ctx.config, existing.host, () => ({ username: 'check', password: 'check' })));
  if (hash !== meta.specHash) throw new AlreadyExistsError(spec.name, existing.host.name);
  return {
    reason: `${existing.host.name}: the proxy exists there`,
    record: toRecord(existing.host.name, { name: existing.id, state: existing.state }, meta),
  };
}
