/**
 * The Proxies table's traffic, CPU and health cells: each selects only its own row's figures from
 * the stats store, so a sample re-renders the visible rows' cells and nothing else. The
 * sparkline is a plain SVG polyline (no chart library, nothing the CSP refuses).
 */
import { formatRate } from '../../shared/bytes.js';
import type { ProxyKey } from '../../shared/proxy-key.js';
import { SPARK_HEIGHT as H, SPARK_WIDTH as W } from '../sparkline.js';
import { useHealthStore } from '../stores/health-store.js';
import { useStatsStore } from '../stores/stats-store.js';

export function TrafficCell({ statsKey, name }: { statsKey: ProxyKey; name: string }) {
  const rates = useStatsStore((s) => s.rates[statsKey]);
  const spark = useStatsStore((s) => s.spark[statsKey]);
  if (!rates)
    return (
      <span className="meta" title="no figures yet: not running, just started, or its host did not answer">
        —
      </span>
    );
  const points = spark ? spark.points() : '';
  return (
    <span
      className="traffic"
      title={`in ${formatRate(rates.inBps)} (${rates.inPps.toFixed(1)} packets/s), out ${formatRate(rates.outBps)} (${rates.outPps.toFixed(1)} packets/s)`}
    >
      {points && (
        <svg
          className="spark"
          width={W}
          height={H}
          viewBox={`0 0 ${W} ${H}`}
          role="img"
          aria-label={`traffic of ${name}, last ${spark!.length} samples`}
        >
          <polyline points={points} fill="none" stroke="currentColor" strokeWidth="1.5" />
        </svg>
      )}
      <span className="rate">
        ↓{formatRate(rates.inBps)} ↑{formatRate(rates.outBps)}
      </span>
    </span>
  );
}

export function CpuCell({ statsKey }: { statsKey: ProxyKey }) {
  const rates = useStatsStore((s) => s.rates[statsKey]);
  return rates ? <>{rates.cpuPercent.toFixed(rates.cpuPercent < 10 ? 1 : 0)}%</> : <span className="meta">—</span>;
}

/**
 * toLocaleTimeString's format, made once: each call of toLocaleTimeString builds a formatter
 * (tens of microseconds), and every visible row's health cell renders on each scroll frame.
 */
const TIME = new Intl.DateTimeFormat(undefined, { hour: 'numeric', minute: 'numeric', second: 'numeric' });

/** A dot and a word for the proxy's health, the latency beside it; the title says since when and why. */
export function HealthCell({ statsKey }: { statsKey: ProxyKey }) {
  const h = useHealthStore((s) => s.health[statsKey]);
  if (!h) return <span className="meta">—</span>;
  const title = [
    `${h.state} since ${TIME.format(h.since)}`,
    h.lastError,
    h.exitAddress && `exit address ${h.exitAddress}${h.exitChanged ? ' (changed)' : ''}`,
    h.exitWarning,
  ]
    .filter(Boolean)
    .join('; ');
  return (
    <span className={`health health-${h.state}`} title={title}>
      <span aria-hidden="true" className="dot">
        ●
      </span>{' '}
      {h.state}
      {h.latencyMs !== undefined && h.state !== 'unknown' && <span className="meta"> {h.latencyMs} ms</span>}
      {h.exitWarning && <ExitWarning text={h.exitWarning} />}
    </span>
  );
}

/** The backend's warning about a proxy's exit address (changed, or not the one its host's other proxies show): a mark, the words on hover and for screen readers. */
export function ExitWarning({ text, name }: { text: string; name?: string }) {
  return (
    <span className="exit-warning" role="note" title={text}>
      {' '}
      ⚠<span className={name ? undefined : 'visually-hidden'}> {name ? text : `exit address: ${text}`}</span>
    </span>
  );
}

/** A proxy's health as a coloured dot with its state in words (the Hosts view's lists). */
export function HealthDot({ statsKey }: { statsKey: ProxyKey }) {
  const state = useHealthStore((s) => s.health[statsKey]?.state) ?? 'unknown';
  return (
    <span className={`health health-${state}`} title={state}>
      <span aria-hidden="true" className="dot">
        ●
      </span>
      <span className="visually-hidden"> {state}</span>
    </span>
  );
}
