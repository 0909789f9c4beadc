/**
 * The inspector's Traffic tab: the watched proxy's last hour as three charts (bytes a second
 * in and out, CPU, probe latency), its figures now in words, and its health with the exit
 * address (and the backend's warning about it). While the tab is open it keeps the 5 s
 * cadence (the `watch` lease) and asks for this proxy's history alone (`historyOf`);
 * the events between two asks extend the charts.
 */
import { useEffect, useMemo, useState } from 'react';
import { formatRate } from '../../../shared/bytes.js';
import { type ProxyInspectionView } from '../../../shared/proxies.js';
import type { ProxyRef } from '../../../shared/stats.js';
import { proxyKey } from '../../../shared/proxy-key.js';
import { errorMessage } from '../../format.js';
import { useHealthStore } from '../../stores/health-store.js';
import { watchProxyHistory } from '../../stores/stats-store.js';
import { type ProxyHistory, chartColumns, emptyHistory, seeded, withProbe, withSample } from '../../traffic-history.js';
import { ExitWarning } from '../ProxyTraffic.js';
import { TimeChart } from './TimeChart.js';

const IN_OUT = [
  { label: 'in', colorVar: '--chart-in' },
  { label: 'out', colorVar: '--chart-out' },
] as const;
const CPU = [{ label: 'CPU', colorVar: '--chart-cpu' }] as const;
const LATENCY = [{ label: 'latency', colorVar: '--chart-latency' }] as const;

const percent = (v: number) => `${v.toFixed(v < 10 ? 1 : 0)}%`;
const ms = (v: number) => `${Math.round(v)} ms`;

/** Follows one proxy's history while mounted (the inspector keys the panel by proxy, so a new one starts empty). */
function useProxyHistory(ref: ProxyRef): { history: ProxyHistory; error: string | undefined } {
  const [history, setHistory] = useState(emptyHistory);
  const [error, setError] = useState<string>();
  useEffect(() => {
    try {
      return watchProxyHistory(ref, {
        answer: (stats) => {
          setError(undefined);
          setHistory((h) => seeded(h, stats, ref));
        },
        error: (err) => setError(errorMessage(err)),
        sample: (s) => setHistory((h) => withSample(h, s, ref)),
        probe: (f) => setHistory((h) => withProbe(h, f, ref)),
      });
    } catch {
      return undefined; // no bridge: the frame says so (App.tsx)
    }
  }, [ref]);
  return { history, error };
}

export function TrafficPanel({ inspection }: { inspection: ProxyInspectionView; gone: boolean }) {
  const { host, id: domain, name } = inspection.proxy;
  const ref = useMemo(() => ({ host, domain }), [host, domain]);
  const { history, error } = useProxyHistory(ref);
  const health = useHealthStore((s) => s.health[proxyKey(host, domain)]);
  const traffic = useMemo(() => chartColumns(history.rates, [(p) => p.inBps, (p) => p.outBps]), [history.rates]);
  const cpu = useMemo(() => chartColumns(history.rates, [(p) => p.cpuPercent]), [history.rates]);
  const latency = useMemo(() => chartColumns(history.latency, [(p) => p.latencyMs]), [history.latency]);
  const now = history.rates.at(-1);
  const peakIn = Math.max(0, ...history.rates.map((p) => p.inBps));
  const peakOut = Math.max(0, ...history.rates.map((p) => p.outBps));
  const answered = history.latency.flatMap((p) => (p.latencyMs === null ? [] : [p.latencyMs]));

  return (
    <div className="traffic-panel">
      {error && (
        <p role="alert" className="error">
          Cannot read the figures of {name}: {error}. They come from its host&apos;s stats; check the host in the Hosts
          view.
        </p>
      )}
      <dl className="facts traffic-now" aria-label={`Figures of ${name} now`}>
        <dt>Traffic now</dt>
        <dd>
          {now
            ? `in ${formatRate(now.inBps)}, out ${formatRate(now.outBps)}`
            : 'no figures yet (not running, just started, or its host did not answer)'}
        </dd>
        <dt>CPU now</dt>
        <dd>{now ? percent(now.cpuPercent) : '—'}</dd>
        <dt>Health</dt>
        <dd>
          {health ? (
            <span className={`health health-${health.state}`}>
              <span aria-hidden="true" className="dot">
                ●
              </span>{' '}
              {health.state}
              {health.latencyMs !== undefined && health.state !== 'unknown' && `, ${ms(health.latencyMs)}`}
              {health.lastError && <span className="meta"> ({health.lastError})</span>}
            </span>
          ) : (
            'not probed yet'
          )}
        </dd>
        <dt>Exit address</dt>
        <dd>
          {health?.exitAddress ?? <span className="meta">unknown (set an echo URL in the settings to see it)</span>}
          {health?.exitWarning && <ExitWarning text={health.exitWarning} name={name} />}
        </dd>
      </dl>
      <section className="chart-block" aria-labelledby="traffic-chart-h">
        <h3 id="traffic-chart-h">
          Traffic, last hour{' '}
          <span className="meta">
            (peak in {formatRate(peakIn)}, out {formatRate(peakOut)}; {history.rates.length} samples)
          </span>
        </h3>
        <p className="chart-legend" aria-hidden="true">
          <span className="key key-in">━ in</span> <span className="key key-out">━ out</span>
        </p>
        <TimeChart
          label={`Bytes a second in and out of ${name} over the last hour`}
          series={IN_OUT}
          data={traffic}
          format={formatRate}
          floor={1024}
        />
      </section>
      <section className="chart-block" aria-labelledby="cpu-chart-h">
        <h3 id="cpu-chart-h">
          CPU, last hour{' '}
          <span className="meta">
            (percent of one host core; peak {percent(Math.max(0, ...history.rates.map((p) => p.cpuPercent)))})
          </span>
        </h3>
        <TimeChart label={`CPU of ${name} over the last hour`} series={CPU} data={cpu} format={percent} floor={1} />
      </section>
      <section className="chart-block" aria-labelledby="latency-chart-h">
        <h3 id="latency-chart-h">
          Latency, last hour{' '}
          <span className="meta">
            (
            {answered.length
              ? `${history.latency.length} probes, median ${ms(answered.sort((a, b) => a - b)[Math.floor(answered.length / 2)]!)}`
              : 'no probe answered yet'}
            {history.latency.length > answered.length
              ? `, ${history.latency.length - answered.length} without an answer`
              : ''}
            )
          </span>
        </h3>
        <TimeChart
          label={`Latency of health probes through ${name} over the last hour`}
          series={LATENCY}
          data={latency}
          format={ms}
          floor={10}
        />
      </section>
    </div>
  );
}
