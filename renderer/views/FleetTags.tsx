/** A proxy's fleet facts in its row: its labels, who launched it when that is not you, and its expiry as a countdown. */
import { type LaunchedBy, countdown, isMine, ownerText } from '../../shared/fleet-meta.js';
import type { ProxyRecordView } from '../../shared/proxies.js';

export function FleetTags({ proxy, you, now }: { proxy: ProxyRecordView; you: LaunchedBy | undefined; now: number }) {
  const labels = Object.entries(proxy.labels ?? {});
  const theirs = proxy.launchedBy && you && !isMine(proxy.launchedBy, you) ? ownerText(proxy.launchedBy) : undefined;
  if (!labels.length && !theirs && !proxy.expiresAt) return null;
  return (
    <span className="fleet-tags">
      {labels.map(([k, v]) => (
        <span key={k} className="label-chip" title={`label ${k}=${v}`}>{`${k}=${v}`}</span>
      ))}
      {theirs && (
        <span
          className="meta owner"
          title="launched by someone else: stopping or deleting it asks first"
        >{` by ${theirs}`}</span>
      )}
      {proxy.expiresAt && (
        <span
          className="meta expiry"
          title={`deleted at ${proxy.expiresAt}`}
        >{` ⏱ ${countdown(proxy.expiresAt, now)}`}</span>
      )}
    </span>
  );
}
