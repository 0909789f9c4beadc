import { useEffect } from 'react';
import { formatIssue } from '../shared/config.js';
import { windowApi } from './api.js';
import { useConfigStore } from './config-store.js';

/** The app frame: the config this app runs from, its hosts, machine types and images. */
export function App() {
  const { info, state, error, load } = useConfigStore();
  useEffect(() => {
    try {
      void load(windowApi());
    } catch (err) {
      useConfigStore.setState({ error: err instanceof Error ? err.message : String(err) });
    }
  }, [load]);

  const kvm = state?.config?.kvm;
  return (
    <>
      <header>
        <h1>Egress Desk</h1>
        {info && <span className="meta">version {info.version}</span>}
        {state && (
          <span className="meta">
            config <code>{state.path}</code>
            {state.created && ' (created on this first start)'}
          </span>
        )}
      </header>
      <main>
        {error && (
          <section role="alert">
            <h2>Cannot reach the backend</h2>
            <p className="error">{error}</p>
          </section>
        )}
        {state?.error && (
          <section role="alert">
            <h2>The config file cannot be read</h2>
            <p className="error">{state.error}</p>
          </section>
        )}
        {state?.issues && (
          <section role="alert">
            <h2>The config file has problems</h2>
            <p>Fix them in the file; it is left as it is until then.</p>
            <ul className="issues">
              {state.issues.map((i) => (
                <li key={formatIssue(i)}>
                  <code>{formatIssue(i)}</code>
                </li>
              ))}
            </ul>
          </section>
        )}
        {kvm && (
          <>
            <section aria-labelledby="hosts-h">
              <h2 id="hosts-h">Hosts</h2>
              <table>
                <thead>
                  <tr><th>Name</th><th>Address</th><th>Pool</th><th>Network</th></tr>
                </thead>
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
            <section aria-labelledby="types-h">
              <h2 id="types-h">Machine types</h2>
              <table>
                <thead>
                  <tr><th>Name</th><th>vCPUs</th><th>Memory</th><th>Disk</th></tr>
                </thead>
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
            <section aria-labelledby="images-h">
              <h2 id="images-h">Images</h2>
              {Object.keys(kvm.images ?? {}).length === 0 ? (
                <p className="empty">
                  No image yet. Add one under <code>kvm.images</code> in the config file, with the sha256 from its publisher&apos;s
                  SHA256SUMS.
                </p>
              ) : (
                <table>
                  <thead>
                    <tr><th>Name</th><th>Format</th><th>sha256</th></tr>
                  </thead>
                  <tbody>
                    {Object.entries(kvm.images ?? {}).map(([name, img]) => (
                      <tr key={name}>
                        <td>{name}</td>
                        <td>{img.format ?? 'qcow2'}</td>
                        <td><code>{img.sha256.slice(0, 16)}…</code></td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </section>
          </>
        )}
      </main>
    </>
  );
}
