/**
 * Replacing a proxy: a fresh one with the same name, spec, labels, expiry and credentials,
 * on the same host or another, ready before the old one is deleted (a new exit address is
 * often the point; clients' URLs change only in the address).
 *
 * libvirt cannot rename a running domain and two domains cannot share a name, so the new
 * domain takes the name's other instance id (names.ts `replacementId`) and records
 * `<replaces domain host>` in its metadata while the old one exists: every lookup by name
 * (URL, inspect, stop, delete) takes the one that replaces nothing, so the old one serves
 * until it is gone. Then the element is removed (DOMAIN_SET_METADATA, no restart).
 *
 * A failure of the new one (any step, or not ready in time) rolls the new one back and
 * leaves the old one as it was: nothing of it is touched before the new one answers.
 */
import { type ProxyCredentials, type ProxySpec } from '../../../../../shared/proxy.js';
import type { ProviderContext, ProxyRecord } from '../context.js';
import { type LaunchEvent, type LaunchOptions, launch } from './launch.js';
import { checkOwnership } from './fleet-ops.js';
import { locate, metadataOf } from '../fleet.js';
import { METADATA_KEY, METADATA_NS, buildInstanceMetadataXml } from '../xml/metadata.js';
import { resolveSpec, specHash } from '../render.js';
import { removeDomain } from './retire.js';

/** The proxy cannot be replaced as it is (its spec cannot be rebuilt, its credentials are not here). */
export class ReplaceError extends Error {
  override readonly name = 'ReplaceError';
}

/** A replace's progress: the launch's steps, then `retire` (the old one removed) and `finish`. */
export type ReplaceEvent = LaunchEvent | { step: 'retire' | 'finish'; phase: 'start' | 'done'; message?: string };

export interface ReplaceOptions {
  /** Where the new one goes (a host entry); default: the old one's host. */
  host?: string;
  /** Replace it even when someone else launched it. */
  force?: boolean;
  /** The allow list it was launched with, for a proxy whose metadata does not record it (launched before 0.2 with its own list). */
  allow?: string[];
  signal?: AbortSignal;
  /** Bound on the new one's launch and readiness (default: the launch's, 10 min). */
  timeoutMs?: number;
  onStep?: (event: ReplaceEvent) => void;
  /** The launch itself (default: launch.ts); injected by tests of the ordering. */
  launcher?: typeof launch;
}

export interface ReplaceResult {
  /** The new proxy, ready. */
  proxy: ProxyRecord;
  /** The domain that was replaced, and what of it was removed. */
  old: { host: string; domain: string; removed: string[] };
  placement: string;
  address?: string;
  /** With credentials: a secret, for the CLI's stdout only. */
  url?: string;
}

/**
 * The spec the proxy was launched with, rebuilt from its metadata, the config and the
 * stored credentials, checked against the spec hash it recorded; ReplaceError when it
 * does not reproduce (a replacement would then be a different proxy).
 */
export function rebuildSpec(
  ctx: ProviderContext,
  meta: NonNullable<ReturnType<typeof metadataOf>>,
  credentials: ProxyCredentials | undefined,
  allow: string[] | undefined,
): Omit<ProxySpec, 'host'> {
  const host = ctx.config.hosts.find((h) => h.name === meta.host);
  const base: Omit<ProxySpec, 'host'> = {
    name: meta.name,
    machineType: meta.machineType,
    image: meta.image.name,
    port: meta.port,
    ...(meta.kind ? { kind: meta.kind } : {}),
    ...(allow ? { allow } : meta.allow ? { allow: meta.allow } : {}),
    ...(meta.labels && Object.keys(meta.labels).length ? { labels: meta.labels } : {}),
    ...(meta.expiresAt !== undefined ? { expiresAt: meta.expiresAt } : {}),
    ...(credentials ? { credentials } : { auth: false }),
  };
  if (!host)
    throw new ReplaceError(
      `proxy ${meta.name} was launched on host ${meta.host}, which the config no longer has: its spec cannot be checked`,
    );
  const hashOf = (spec: Omit<ProxySpec, 'host'>): string | undefined => {
    try {
      return specHash(
        resolveSpec({ ...spec, host: host.name }, ctx.config, host, () => ({ username: 'check', password: 'check' })),
      );
    } catch {
      return undefined;
    }
  };
  if (hashOf(base) === meta.specHash) return base;
  if (!credentials) {
    const { auth: _off, ...withAuth } = base;
    if (hashOf(withAuth) === meta.specHash) {
      throw new ReplaceError(
        `the credentials of ${meta.name} are not stored on this workstation: a replacement would get new ones, and its clients' URLs would change beyond the address (replace it from the workstation that launched it)`,
      );
    }
  }
  throw new ReplaceError(
    `the spec of ${meta.name} cannot be rebuilt from its metadata and today's config (${meta.allow ? '' : 'its allow list, not recorded before 0.2, may not have been the default: give it with --allow; or '}the config's machine type ${meta.machineType}, image ${meta.image.name} or vendor-data changed since its launch), so a replacement would be a different proxy`,
  );
}

export async function replaceProxy(
  ctx: ProviderContext,
  name: string,
  options: ReplaceOptions = {},
): Promise<ReplaceResult> {
  const old = await locate(ctx, name);
  checkOwnership(ctx, old.metadata, 'replace', options.force);
  if (options.host !== undefined && !ctx.config.hosts.some((h) => h.name === options.host)) {
    throw new ReplaceError(
      `no host named ${JSON.stringify(options.host)} (known: ${ctx.config.hosts.map((h) => h.name).join(', ')})`,
    );
  }
  const credentials = await ctx.credentials.get(name);
  const spec: ProxySpec = {
    ...rebuildSpec(ctx, old.metadata, credentials, options.allow),
    host: options.host ?? old.host.name,
  };
  const replacing = { domain: old.domain.name, host: old.host.name };
  const launchOptions: LaunchOptions = {
    wait: true,
    // Not ready in time: the new one goes and the old one stays, as with any failure.
    rollbackOnTimeout: true,
    replacing,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.onStep ? { onStep: options.onStep } : {}),
  };
  const fresh = await (options.launcher ?? launch)(ctx, spec, launchOptions);

  // The new one answers: only now is anything of the old one touched.
  options.onStep?.({ step: 'retire', phase: 'start', message: `${old.domain.name} on ${old.host.name}` });
  const removed = await removeDomain(ctx, old);
  options.onStep?.({ step: 'retire', phase: 'done', message: removed.join(', ') });

  options.onStep?.({ step: 'finish', phase: 'start' });
  const api = await ctx.apiFor(fresh.proxy.host);
  const domain = await api.getDomain(fresh.proxy.id);
  const meta = domain ? metadataOf(domain) : undefined;
  if (meta?.replaces) {
    const { replaces: _done, ...rest } = meta;
    await api.setMetadata(fresh.proxy.id, { uri: METADATA_NS, key: METADATA_KEY, xml: buildInstanceMetadataXml(rest) });
  }
  options.onStep?.({ step: 'finish', phase: 'done', message: `${name} is ${fresh.proxy.id} on ${fresh.proxy.host}` });
  const { replacing: _gone, ...proxy } = fresh.proxy;
  return {
    proxy,
    old: { host: old.host.name, domain: old.domain.name, removed },
    placement: fresh.placement,
    ...(fresh.address !== undefined ? { address: fresh.address } : {}),
    ...(fresh.url !== undefined ? { url: fresh.url } : {}),
  };
}
