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

/**
 * `waiting`: the listing has not arrived; the summary is there with dashes for figures, so
 * that the table does not move down when it arrives (and its elements are made already).
 */
export function FleetSummary({
  keys,
  filter,
  onFilter,
  waiting = false,
}: {
  keys: readonly string[];
  filter: HealthState | null;
  onFilter: (state: HealthState | null) => void;
  waiting?: boolean;
}) {
  const health = useHealthStore((s) => s.health);
  const rates = useStatsStore((s) => s.rates);
  const totals = useMemo(() => fleetTotals(keys, health, rates), [keys, health, rates]);
  const figure = (text: string | number) => (waiting ? '–' : text);
  return (
    <div className="fleet-summary" role="group" aria-label="Fleet summary" aria-busy={waiting}>
      {HEALTH_STATES.map((state) => (
        <button
          type="button"
          key={state}
          className={`summary-count health-${state}`}
          aria-pressed={filter === state}
          disabled={waiting}
          onClick={() => onFilter(filter === state ? null : state)}
          title={filter === state ? 'Show all proxies again' : `Show only the ${state} proxies`}
        >
          <span aria-hidden="true" className="dot">
            ●
          </span>{' '}
          {figure(totals.counts[state])} {state}
        </button>
      ))}
      <span className="summary-traffic">
        Traffic now: ↓ {figure(formatRate(totals.inBps))} in · ↑ {figure(formatRate(totals.outBps))} out
        <span className="meta">
          {' '}
          ({waiting ? 'listing the proxies' : `${totals.measured} of ${keys.length} measured`})
        </span>
      </span>
    </div>
  );
}
