/**
 * A host's load as meters (memory in use, each pool's space in use, the host's own CPU,
 * and the CPU its proxies use), and the proxies on it with their health dots: the Hosts
 * view's cards. Memory, pools and host CPU come from `hosts:load`, asked every few seconds
 * while the card shows (before its first answer: the facts at connect, and no host CPU);
 * the proxies' CPU is the sum of their CPU from the last stats sample, as a share of the
 * host's cores.
 */
import { useId } from 'react';
import type { HostInfo, HostLoad as HostLoadFigures } from '../../shared/hosts.js';
import type { ProxyKey } from '../../shared/proxy-key.js';
import { formatBytes } from '../format.js';
import { useStatsStore } from '../stores/stats-store.js';
import { HealthDot } from './ProxyTraffic.js';

/** A labelled `<meter>`: high above 80 %, optimum low (the browser colours it). */
function Meter({ label, value, max, text }: { label: string; value: number; max: number; text: string }) {
  const id = useId();
  return (
    <div className="meter-row">
      <span id={id} className="meter-label">
        {label}
      </span>
      <meter
        aria-labelledby={id}
        min={0}
        max={max > 0 ? max : 1}
        value={Math.min(Math.max(value, 0), max)}
        low={max * 0.6}
        high={max * 0.8}
        optimum={0}
      />
      <span className="meter-text">{text}</span>
    </div>
  );
}

const pct = (value: number, max: number) => (max > 0 ? `${Math.round((value / max) * 100)} %` : '—');

export interface HostProxy {
  key: ProxyKey;
  name: string;
}

export function HostLoad({
  host,
  info,
  load,
  proxies,
}: {
  host: string;
  info: HostInfo | undefined;
  load?: HostLoadFigures | undefined;
  proxies: readonly HostProxy[];
}) {
  // The proxies' CPU now, summed; recomputed per sample for this card only.
  const cpuPercent = useStatsStore((s) => proxies.reduce((sum, p) => sum + (s.rates[p.key]?.cpuPercent ?? 0), 0));
  const memory = load?.memoryBytes ?? info?.memoryBytes ?? 0;
  // In use = not available: page cache the kernel gives back on demand is not "used" (when the host reports it).
  const used = memory - (load?.availableMemoryBytes ?? info?.freeMemoryBytes ?? 0);
  const cpus = load?.cpus ?? info?.cpus ?? 0;
  const pools = load?.pools ?? info?.pools ?? [];
  return (
    <div className="host-load">
      {(info || load) && (
        <div className="meters" role="group" aria-label={`Load of ${host}`}>
          <Meter
            label="Memory"
            value={used}
            max={memory}
            text={`${formatBytes(used)} of ${formatBytes(memory)} in use (${pct(used, memory)})`}
          />
          {load?.cpuBusy !== undefined && (
            <Meter
              label="CPU (host)"
              value={load.cpuBusy * cpus * 100}
              max={cpus * 100}
              text={`${Math.round(load.cpuBusy * 100)} % of ${cpus} ${cpus === 1 ? 'core' : 'cores'} busy, over the last ${Math.max(1, Math.round((load.cpuWindowMs ?? 0) / 1000))} s`}
            />
          )}
          {pools.map((p) => (
            <Meter
              key={p.name}
              label={`Pool ${p.name}`}
              value={p.capacityBytes - p.availableBytes}
              max={p.capacityBytes}
              text={`${formatBytes(p.capacityBytes - p.availableBytes)} of ${formatBytes(p.capacityBytes)} used${p.active ? '' : ' (inactive)'}`}
            />
          ))}
          <Meter
            label="CPU (proxies)"
            value={cpuPercent}
            max={cpus * 100}
            text={`${cpuPercent.toFixed(cpuPercent < 10 ? 1 : 0)} % of one core, on ${cpus} ${cpus === 1 ? 'core' : 'cores'} (${pct(cpuPercent, cpus * 100)})`}
          />
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
