/**
 * A host's load as meters (memory in use, each pool's space in use, the CPU its proxies
 * use), and the proxies on it with their health dots: the Hosts view's cards. Memory and
 * pools are the host's facts from its connection; CPU is the sum of its proxies' CPU from
 * the last stats sample, as a share of the host's cores (the host's own other load is not
 * in libvirt's per-domain figures).
 */
import { useId } from 'react';
import type { HostInfo } from '../../shared/hosts.js';
import { formatBytes } from '../format.js';
import { useStatsStore } from '../stores/stats-store.js';
import { HealthDot } from './ProxyTraffic.js';

/** A labelled `<meter>`: high above 80 %, optimum low (the browser colours it). */
function Meter({ label, value, max, text }: { label: string; value: number; max: number; text: string }) {
  const id = useId();
  return (
    <div className="meter-row">
      <span id={id} className="meter-label">{label}</span>
      <meter aria-labelledby={id} min={0} max={max > 0 ? max : 1} value={Math.min(Math.max(value, 0), max)} low={max * 0.6} high={max * 0.8} optimum={0} />
      <span className="meter-text">{text}</span>
    </div>
  );
}

const pct = (value: number, max: number) => (max > 0 ? `${Math.round((value / max) * 100)} %` : '—');

export interface HostProxy {
  key: string;
  name: string;
}

export function HostLoad({ host, info, proxies }: { host: string; info: HostInfo | undefined; proxies: readonly HostProxy[] }) {
  // The proxies' CPU now, summed; recomputed per sample for this card only.
  const cpuPercent = useStatsStore((s) => proxies.reduce((sum, p) => sum + (s.rates[p.key]?.cpuPercent ?? 0), 0));
  return (
    <div className="host-load">
      {info && (
        <div className="meters" role="group" aria-label={`Load of ${host}`}>
          <Meter label="Memory" value={info.memoryBytes - info.freeMemoryBytes} max={info.memoryBytes} text={`${formatBytes(info.memoryBytes - info.freeMemoryBytes)} of ${formatBytes(info.memoryBytes)} in use (${pct(info.memoryBytes - info.freeMemoryBytes, info.memoryBytes)})`} />
          {info.pools.map((p) => (
            <Meter key={p.name} label={`Pool ${p.name}`} value={p.capacityBytes - p.availableBytes} max={p.capacityBytes} text={`${formatBytes(p.capacityBytes - p.availableBytes)} of ${formatBytes(p.capacityBytes)} used${p.active ? '' : ' (inactive)'}`} />
          ))}
          <Meter label="CPU (proxies)" value={cpuPercent} max={info.cpus * 100} text={`${cpuPercent.toFixed(cpuPercent < 10 ? 1 : 0)} % of one core, on ${info.cpus} ${info.cpus === 1 ? 'core' : 'cores'} (${pct(cpuPercent, info.cpus * 100)})`} />
        </div>
      )}
      <div className="host-proxies">
        <h4 id={`host-proxies-${host}`}>Proxies on {host}</h4>
        {proxies.length === 0 ? (
          <p className="meta">none</p>
        ) : (
          <ul aria-labelledby={`host-proxies-${host}`}>
            {proxies.map((p) => (
              <li key={p.key}>
                <HealthDot statsKey={p.key} /> {p.name}
              </li>
            ))}
          </ul>
        )}
      </div>
    </div>
  );
}
