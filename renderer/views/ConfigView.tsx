/** The config this app runs from: its problems, if any, its hosts, machine types and images as written, and export and
import (with a preview of the changes), each a panel of its own: ConfigExportPanel.tsx, ConfigImportPanel.tsx. */
import { formatIssue } from '../../shared/config.js';
import { useAppConfigStore } from '../stores/app-config-store.js';
import { ColumnHeads } from './ColumnHeads.js';
import { ConfigExportPanel } from './ConfigExportPanel.js';
import { ConfigImportPanel } from './ConfigImportPanel.js';
import { ViewSection } from './ViewSection.js';

/** The Config view: the config file's path and problems, what it lists, and its export and import. */
export function ConfigView() {
  const state = useAppConfigStore((s) => s.state);
  const kvm = state?.config?.kvm;
  return (
    <ViewSection
      headingId="config-h"
      title="Config"
      className="view-config"
      meta={
        state && (
          <>
            file <code>{state.path}</code>
          </>
        )
      }
    >
      {state?.error && (
        <section role="alert" className="panel">
          <h3>The config file cannot be read</h3>
          <p className="error">{state.error}</p>
          {state.lastGood && (
            <p>
              The app keeps working on the last config that loaded; changes from the app are refused until the file
              loads again.
            </p>
          )}
        </section>
      )}
      {state?.issues && (
        <section role="alert" className="panel">
          <h3>The config file has problems</h3>
          <p>
            Fix them in the file; it is left as it is until then.
            {state.lastGood &&
              ' The app keeps working on the last config that loaded; changes from the app are refused until the file loads again.'}
          </p>
          <ul className="issues">
            {state.issues.map((i) => (
              <li key={formatIssue(i)}>
                <code>
                  {i.line !== undefined ? `line ${i.line}: ` : ''}
                  {formatIssue(i)}
                </code>
              </li>
            ))}
          </ul>
        </section>
      )}
      {kvm && (
        <div className="config-grid">
          <section className="panel" aria-labelledby="cfg-hosts-h">
            <h3 id="cfg-hosts-h">Hosts</h3>
            <table>
              <ColumnHeads names={['Name', 'Address', 'Pool', 'Network']} />
              <tbody>
                {kvm.hosts.map((h) => (
                  <tr key={h.name}>
                    <td>{h.name}</td>
                    <td>{h.address === 'local' ? 'this machine' : h.address}</td>
                    <td>{h.pool ?? 'default'}</td>
                    <td>{h.bridge ? `bridge ${h.bridge}` : (h.network ?? 'default')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
          <section className="panel" aria-labelledby="cfg-types-h">
            <h3 id="cfg-types-h">Machine types</h3>
            <table>
              <ColumnHeads names={['Name', 'vCPUs', 'Memory', 'Disk']} />
              <tbody>
                {Object.entries(kvm.machineTypes).map(([name, m]) => (
                  <tr key={name}>
                    <td>{name}</td>
                    <td>{m.vcpus}</td>
                    <td>{m.memoryMiB} MiB</td>
                    <td>{m.diskGiB ?? 10} GiB</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
          <section className="panel" aria-labelledby="cfg-images-h">
            <h3 id="cfg-images-h">Images</h3>
            {Object.keys(kvm.images ?? {}).length === 0 ? (
              <p className="empty">
                No image yet. Add one under <code>kvm.images</code> in the config file, with the sha256 from its
                publisher&apos;s SHA256SUMS.
              </p>
            ) : (
              <table>
                <ColumnHeads names={['Name', 'Format', 'sha256']} />
                <tbody>
                  {Object.entries(kvm.images ?? {}).map(([name, img]) => (
                    <tr key={name}>
                      <td>{name}</td>
                      <td>{img.format ?? 'qcow2'}</td>
                      <td>
                        <code>{img.sha256.slice(0, 16)}…</code>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
        </div>
      )}
      <div className="config-grid config-io">
        <ConfigExportPanel />
        <ConfigImportPanel />
      </div>
    </ViewSection>
  );
}
