/**
 * `proxy:changed`: a proxy's domain changed, said by libvirt (a lifecycle event) or by the
 * app (what it did, or what its background listing found). Either the proxy as it is now
 * (an upsert) or the news that it is gone (a removal, which has no record left to send).
 */
import { z } from 'zod';
import { ProxyRecordSchema } from './proxies.js';

/**
 * libvirt's lifecycle events (`virDomainEventType`, electron/libvirt/events.ts) as the fleet
 * watch forwards them; `UNKNOWN` for a value newer than the client's table.
 */
export const LIFECYCLE_EVENTS = [
  'DEFINED',
  'UNDEFINED',
  'STARTED',
  'SUSPENDED',
  'RESUMED',
  'STOPPED',
  'SHUTDOWN',
  'PMSUSPENDED',
  'CRASHED',
  'UNKNOWN',
] as const;
export const LifecycleEventSchema = z.enum(LIFECYCLE_EVENTS);
export type LifecycleEvent = z.infer<typeof LifecycleEventSchema>;

/**
 * What the app says of its own doing: a launch, a replacement, a label edit; `START`, `STOP`
 * and `DELETE` after the task of that verb when the proxy is still listed; `DELETED` after a
 * delete; `RECONCILED` for a change the background listing found with no event to say it.
 */
export const APP_PROXY_EVENTS = [
  'LAUNCHED',
  'REPLACED',
  'LABELLED',
  'START',
  'STOP',
  'DELETE',
  'DELETED',
  'RECONCILED',
] as const;

/** Every event name a `proxy:changed` carries. */
export const ProxyEventSchema = z.enum([...LIFECYCLE_EVENTS, ...APP_PROXY_EVENTS]);
export type ProxyEvent = z.infer<typeof ProxyEventSchema>;

const where = {
  host: z.string(),
  /** The libvirt domain name. */
  domain: z.string(),
  event: ProxyEventSchema,
};

/** The proxy as it is now: added, or changed. */
export const ProxyUpsertSchema = z.object({
  ...where,
  name: z.string(),
  removed: z.literal(false),
  proxy: ProxyRecordSchema,
});
/** The proxy is gone; its name when this backend had seen it (a removal libvirt reports of a domain never listed has none). */
export const ProxyRemovedSchema = z.object({ ...where, name: z.string().optional(), removed: z.literal(true) });

/** `proxy:changed`'s payload, told apart by `removed`: the same JSON as when it was one object with optional fields. */
export const ProxyChangedSchema = z.discriminatedUnion('removed', [ProxyUpsertSchema, ProxyRemovedSchema]);
export type ProxyChanged = z.infer<typeof ProxyChangedSchema>;
