/**
 * The Proxies table's traffic and CPU cells: each selects only its own row's figures from
 * the stats store, so a sample re-renders the visible rows' cells and nothing else. The
 * sparkline is a plain SVG polyline (no chart library, nothing the CSP refuses).
 */
import { formatRate } from '../../shared/bytes.js';
import { SPARK_HEIGHT as H, SPARK_WIDTH as W, sparkPoints } from '../sparkline.js';
import { useStatsStore } from '../stores/stats-store.js';

export function TrafficCell({ statsKey, name }: { statsKey: string; name: string }) {
  const rates = useStatsStore((s) => s.rates[statsKey]);
  const spark = useStatsStore((s) => s.spark[statsKey]);
  if (!rates) return <span className="meta" title="no figures yet: not running, just started, or its host did not answer">—</span>;
  const points = sparkPoints(spark ?? []);
  return (
    <span className="traffic" title={`in ${formatRate(rates.inBps)} (${rates.inPps.toFixed(1)} packets/s), out ${formatRate(rates.outBps)} (${rates.outPps.toFixed(1)} packets/s)`}>
      {points && (
        <svg className="spark" width={W} height={H} viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`traffic of ${name}, last ${spark!.length} samples`}>
          <polyline points={points} fill="none" stroke="currentColor" strokeWidth="1.5" />
        </svg>
      )}
      <span className="rate">↓{formatRate(rates.inBps)} ↑{formatRate(rates.outBps)}</span>
    </span>
  );
}

export function CpuCell({ statsKey }: { statsKey: string }) {
  const rates = useStatsStore((s) => s.rates[statsKey]);
  return rates ? <>{rates.cpuPercent.toFixed(rates.cpuPercent < 10 ? 1 : 0)}%</> : <span className="meta">—</span>;
}
