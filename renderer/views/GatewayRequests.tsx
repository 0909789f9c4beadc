/**
 * The Gateway view's Requests table (issue 40): the newest access-log entries, newest first,
 * with a filter over the same words `egress-desk gateway log` prints (shared/gateway-log-line.ts),
 * so that what a person types matches what they would grep for.
 */
import { useId, useMemo, useState } from 'react';
import { formatBytes } from '../../shared/bytes.js';
import type { GatewayAccessEntry } from '../../shared/gateway.js';
import { formatAccessEntry } from '../../shared/gateway-log-line.js';
import { ColumnHeads } from './ColumnHeads.js';
import { Field } from './Field.js';

/** At most this many rows are drawn: the log file has the rest. */
const SHOWN = 200;

/** `21:04:05` from the entry's ISO time (the log's own clock: UTC, as the file says). */
const timeOf = (at: string) => at.replace(/^\d{4}-\d{2}-\d{2}T/, '').replace(/\.\d+Z$|Z$/, '');

function outcomeOf(e: GatewayAccessEntry): string {
  const status = e.status !== undefined ? ` ${e.status}` : '';
  // An ok request's reason is what happened first (a member that failed it, its session's move).
  return e.outcome === 'ok'
    ? `ok${status}${e.reason ? ` (${e.reason})` : ''}`
    : `${e.outcome}${status}${e.reason ? `: ${e.reason}` : ''}`;
}

export function GatewayRequests({ requests }: { requests: readonly GatewayAccessEntry[] }) {
  const id = useId();
  const [filter, setFilter] = useState('');
  const shown = useMemo(() => {
    const needle = filter.trim().toLowerCase();
    const all = needle ? requests.filter((e) => formatAccessEntry(e).toLowerCase().includes(needle)) : requests;
    return all.slice(-SHOWN).reverse();
  }, [requests, filter]);

  return (
    <section aria-labelledby={`${id}-h`} className="panel">
      <h3 id={`${id}-h`}>Requests</h3>
      <Field id={`${id}-filter`} label="Filter" hint="Any part of a line: a client, a target, a proxy, an outcome.">
        {(c) => <input {...c} type="search" value={filter} onChange={(e) => setFilter(e.target.value)} />}
      </Field>
      {shown.length === 0 ? (
        <p className="meta">{requests.length ? 'No request matches the filter.' : 'No request yet.'}</p>
      ) : (
        <table aria-label="Requests, newest first" className="gateway-requests">
          <ColumnHeads names={['Time (UTC)', 'Client', 'Request', 'Proxy', 'Outcome', 'Out', 'In', 'Took']} />
          <tbody>
            {shown.map((e, i) => (
              <tr key={`${e.at}-${i}`} className={e.outcome === 'ok' ? undefined : 'error'}>
                <td>{timeOf(e.at)}</td>
                <td>{e.client ?? '-'}</td>
                <td>
                  <code>
                    {e.method} {e.target || '-'}
                  </code>
                </td>
                <td>
                  {e.member ? `${e.member} (${e.host ?? '?'})` : '-'}
                  {e.tries > 1 && <span className="meta"> after {e.tries - 1} failed</span>}
                </td>
                <td>{outcomeOf(e)}</td>
                <td>{formatBytes(e.bytesOut)}</td>
                <td>{formatBytes(e.bytesIn)}</td>
                <td>{Math.round(e.ms)} ms</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
