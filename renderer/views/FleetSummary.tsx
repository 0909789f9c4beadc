/**
 * The fleet at a glance, above the Proxies table (outside its windowed list, so rows stay
 * as cheap as they were): how many proxies are healthy, slow, failing or unknown, and the
 * traffic in and out now. A count is a toggle: pressed, the table shows only those proxies.
 */
import { useMemo } from 'react';
import { formatRate } from '../../shared/bytes.js';
import { HEALTH_STATES, type HealthState } from '../../shared/health.js';
import { fleetTotals } from '../fleet-summary.js';
import { useHealthStore } from '../stores/health-store.js';
import { useStatsStore } from '../stores/stats-store.js';

export function FleetSummary({ keys, filter, onFilter }: { keys: readonly string[]; filter: HealthState | null; onFilter: (state: HealthState | null) => void }) {
  const health = useHealthStore((s) => s.health);
  const rates = useStatsStore((s) => s.rates);
  const totals = useMemo(() => fleetTotals(keys, health, rates), [keys, health, rates]);
  return (
    <div className="fleet-summary" role="group" aria-label="Fleet summary">
      {HEALTH_STATES.map((state) => (
        <button
          type="button"
          key={state}
          className={`summary-count health-${state}`}
          aria-pressed={filter === state}
          onClick={() => onFilter(filter === state ? null : state)}
          title={filter === state ? 'Show all proxies again' : `Show only the ${state} proxies`}
        >
          <span aria-hidden="true" className="dot">●</span> {totals.counts[state]} {state}
        </button>
      ))}
      <span className="summary-traffic">
        Traffic now: ↓ {formatRate(totals.inBps)} in · ↑ {formatRate(totals.outBps)} out
        <span className="meta"> ({totals.measured} of {keys.length} measured)</span>
      </span>
    </div>
  );
}
