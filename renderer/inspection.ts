/** Pure questions about one proxy's inspection, for the inspector's store and panels (unit-tested in test/unit/renderer/). */
import type { ProxyChanged } from '../shared/proxy-changed.js';
import type { ProxyInspectionView } from '../shared/proxies.js';

/** True when `change` is about the proxy `name` (the event names it, or its domain is the inspected one). */
export function concerns(change: ProxyChanged, name: string, inspection: ProxyInspectionView | undefined): boolean {
  if (change.name === name || (!change.removed && change.proxy.name === name)) return true;
  return inspection !== undefined && change.host === inspection.proxy.host && change.domain === inspection.proxy.id;
}

/** Why Copy URL cannot work now (shown next to the disabled button), or undefined when it can. */
export function copyUrlBlocker(inspection: ProxyInspectionView, gone: boolean): string | undefined {
  if (gone) return 'The proxy no longer exists.';
  if (inspection.addresses.length > 0) return undefined;
  if (inspection.proxy.state !== 'running')
    return `The proxy is ${inspection.proxy.state}: it has no address. Start it, then copy its URL.`;
  return 'No address yet: the URL needs the proxy’s address, which appears once the guest has booted and taken a DHCP lease. Refresh to look again.';
}
