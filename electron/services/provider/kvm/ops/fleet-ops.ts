/**
 * What a fleet needs beyond one proxy's lifecycle: labels edited in place (the metadata
 * element replaced through DOMAIN_SET_METADATA, no restart), the ownership check before
 * stopping or deleting someone else's proxy, and finding the proxies whose time is up.
 */
import {
  type Labels,
  type LaunchedBy,
  LabelsSchema,
  LabelKeySchema,
  isExpired,
  isMine,
} from '../../../../../shared/fleet-meta.js';
import { z } from 'zod';
import type { ProviderContext } from '../context.js';
import { NotYourProxyError } from '../errors.js';
import { locate } from '../fleet.js';
import { METADATA_KEY, METADATA_NS, buildInstanceMetadataXml } from '../xml/metadata.js';
import type { ProxyRecord } from '../context.js';

/** A label edit: pairs to set (added or replaced), then keys to remove. */
export const LabelEditSchema = z.strictObject({
  set: LabelsSchema.default({}),
  remove: z.array(LabelKeySchema).max(64).default([]),
});
export type LabelEdit = z.input<typeof LabelEditSchema>;

/**
 * Applies `edit` to the proxy's labels and writes its metadata element back, in the
 * running domain and its definition at once. Edits of one name in this process run one
 * after the other; another workstation editing the same proxy at the same moment can
 * still win (the last write stays), as with any libvirt metadata.
 */
export async function editLabels(
  ctx: ProviderContext,
  name: string,
  input: LabelEdit,
): Promise<{ host: string; labels: Labels; changed: boolean }> {
  const edit = LabelEditSchema.parse(input);
  return ctx.names.run(name, async () => {
    const { host, api, domain, metadata } = await locate(ctx, name);
    const before = metadata.labels ?? {};
    const removed = new Set(edit.remove);
    const labels = LabelsSchema.parse(
      Object.fromEntries(Object.entries({ ...before, ...edit.set }).filter(([k]) => !removed.has(k))),
    );
    const changed = JSON.stringify(Object.entries(labels).sort()) !== JSON.stringify(Object.entries(before).sort());
    if (!changed) return { host: host.name, labels, changed };
    const { labels: _old, ...rest } = metadata;
    const xml = buildInstanceMetadataXml(Object.keys(labels).length ? { ...rest, labels } : rest);
    await api.setMetadata(domain.name, { uri: METADATA_NS, key: METADATA_KEY, xml });
    return { host: host.name, labels, changed };
  });
}

/** Throws {@link NotYourProxyError} when someone else launched the proxy and `force` is not set. A proxy nobody recorded (by 0.1.0) is anyone's. */
export function checkOwnership(
  ctx: ProviderContext,
  proxy: { name: string; launchedBy?: LaunchedBy | undefined },
  verb: 'stop' | 'delete' | 'replace',
  force: boolean | undefined,
): void {
  if (force || !proxy.launchedBy || isMine(proxy.launchedBy, ctx.identity)) return;
  throw new NotYourProxyError(proxy.name, proxy.launchedBy, verb);
}

/** The proxies of a listing whose expiry has passed; a proxy without one never expires. */
export function expiredProxies(ctx: ProviderContext, proxies: readonly ProxyRecord[]): ProxyRecord[] {
  const now = ctx.now();
  return proxies.filter((p) => isExpired(p.expiresAt, now));
}
