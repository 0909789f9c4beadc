/**
 * Base volumes on the hosts that nothing uses (a host's cache of images, one per digest per
 * pool): looked for on request, shown with their sizes and what is kept and why, removed
 * only after the person confirms, and each judged again just before removal (the backend's
 * `images:unusedBases` / `images:pruneBases`, the same judgement as `images prune --hosts`).
 */
import { useState } from 'react';
import type { z } from 'zod';
import type { BasePruneReportSchema, BasePruneResultSchema } from '../../shared/images-view.js';
import { findUnusedBases, pruneBases } from '../stores/catalog-actions.js';
import { errorMessage, formatBytes } from '../format.js';

type Report = z.infer<typeof BasePruneReportSchema>;
type Result = z.infer<typeof BasePruneResultSchema>;
type Phase =
  | { phase: 'idle' }
  | { phase: 'looking' }
  | { phase: 'found'; report: Report }
  | { phase: 'removing'; report: Report }
  | { phase: 'done'; result: Result }
  | { phase: 'error'; message: string };

export function UnusedBases() {
  const [state, setState] = useState<Phase>({ phase: 'idle' });
  const look = async () => {
    setState({ phase: 'looking' });
    try {
      setState({ phase: 'found', report: await findUnusedBases() });
    } catch (err) {
      setState({ phase: 'error', message: errorMessage(err) });
    }
  };
  const remove = async (report: Report) => {
    setState({ phase: 'removing', report });
    try {
      setState({ phase: 'done', result: await pruneBases(report.unused) });
    } catch (err) {
      setState({ phase: 'error', message: errorMessage(err) });
    }
  };
  const report = state.phase === 'found' || state.phase === 'removing' ? state.report : undefined;
  const total = report ? report.unused.reduce((n, u) => n + u.bytes, 0) : 0;
  return (
    <section className="panel" aria-labelledby="bases-h">
      <div className="panel-head">
        <h3 id="bases-h">Base volumes on the hosts</h3>
        <button
          type="button"
          className="small"
          onClick={() => void look()}
          disabled={state.phase === 'looking' || state.phase === 'removing'}
        >
          {state.phase === 'looking' ? 'Looking…' : 'Find unused'}
        </button>
      </div>
      <p className="meta">
        Each host keeps one base volume per image its proxies were launched from. Those no proxy, domain or recent
        launch uses can go.
      </p>
      {state.phase === 'error' && (
        <p role="alert" className="error">
          {state.message}
        </p>
      )}
      {report && (
        <>
          {report.unused.length === 0 ? (
            <p>No unused base volumes.</p>
          ) : (
            <ul aria-label="Unused base volumes">
              {report.unused.map((u) => (
                <li key={`${u.host}/${u.pool}/${u.volume}`}>
                  <code>{u.volume}</code> in pool {u.pool} on {u.host}, {formatBytes(u.bytes)}
                </li>
              ))}
            </ul>
          )}
          {report.kept.length > 0 && (
            <details>
              <summary>{report.kept.length} kept</summary>
              <ul>
                {report.kept.map((k) => (
                  <li key={`${k.host}/${k.pool}/${k.volume}`}>
                    <code>{k.volume}</code> on {k.host}: {k.why}
                  </li>
                ))}
              </ul>
            </details>
          )}
          {report.unreachable.map((u) => (
            <p key={u.host} className="error">
              {u.host} could not be checked (nothing is removed there): {u.error}
            </p>
          ))}
          {report.unused.length > 0 && (
            <button
              type="button"
              className="danger"
              onClick={() => void remove(report)}
              disabled={state.phase === 'removing'}
            >
              {state.phase === 'removing' ? 'Removing…' : `Remove ${report.unused.length} (${formatBytes(total)})`}
            </button>
          )}
        </>
      )}
      {state.phase === 'done' && (
        <p role="status">
          Removed {state.result.removed.length} base volume{state.result.removed.length === 1 ? '' : 's'}
          {state.result.kept.length > 0 &&
            `; kept ${state.result.kept.length} that came into use meanwhile (${state.result.kept.map((k) => `${k.volume}: ${k.why}`).join('; ')})`}
          .
        </p>
      )}
    </section>
  );
}
