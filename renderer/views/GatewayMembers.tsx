/**
 * The Gateway view's Members (issue 40): every proxy of the fleet as the gateway sees it, in
 * use or not and why, with its share of the requests, bytes each way and connections open
 * now; above them the gateway's totals and rates.
 */
import { formatBytes } from '../../shared/bytes.js';
import type { GatewayStatus } from '../../shared/gateway.js';
import { ColumnHeads } from './ColumnHeads.js';

export function GatewayMembers({ status }: { status: GatewayStatus }) {
  const t = status.totals;
  return (
    <section aria-labelledby="gateway-members-h" className="panel">
      <h3 id="gateway-members-h">Members</h3>
      {t && (
        <p className="meta">
          {t.requests} requests since it started ({t.requestsPerSecond.toFixed(1)}/s), {formatBytes(t.bytesOut)} out,{' '}
          {formatBytes(t.bytesIn)} in ({formatBytes(t.bytesPerSecond)}/s)
        </p>
      )}
      {status.members.length === 0 ? (
        <p className="meta">No proxy yet: launch one, and it serves here once it is healthy.</p>
      ) : (
        <table aria-label="Members">
          <ColumnHeads names={['Proxy', 'Host', 'State', 'Requests', 'Share', 'Out', 'In', 'Open']} />
          <tbody>
            {status.members.map((m) => (
              <tr key={m.key}>
                <th scope="row">{m.name}</th>
                <td>{m.host}</td>
                <td>{m.usable ? 'in use' : `not used: ${m.reason ?? ''}`}</td>
                <td>{m.requests}</td>
                <td>{Math.round(m.share * 100)} %</td>
                <td>{formatBytes(m.bytesOut)}</td>
                <td>{formatBytes(m.bytesIn)}</td>
                <td>{m.open}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
