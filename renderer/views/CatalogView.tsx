/** Machine types and images, with each image's local cache state. */
import { useConfigStore } from '../config-store.js';
import { formatBytes } from '../format.js';

export function CatalogView() {
  const { machineTypes, images, catalogError } = useConfigStore();
  return (
    <section className="view" aria-labelledby="catalog-h">
      <div className="view-head">
        <h2 id="catalog-h">Images &amp; machine types</h2>
      </div>
      {catalogError && <p role="alert" className="error">Cannot list them: {catalogError}</p>}
      <section className="panel" aria-labelledby="mt-h">
        <h3 id="mt-h">Machine types</h3>
        {machineTypes.length === 0 ? (
          <p className="empty">No machine type. Add one under <code>kvm.machineTypes</code> in the config file.</p>
        ) : (
          <table>
            <thead>
              <tr><th>Name</th><th>vCPUs</th><th>Memory</th><th>Disk</th><th>Default</th></tr>
            </thead>
            <tbody>
              {machineTypes.map((m) => (
                <tr key={m.name}>
                  <td>{m.name}</td><td>{m.vcpus}</td><td>{m.memoryMiB} MiB</td><td>{m.diskGiB} GiB</td><td>{m.isDefault ? 'yes' : ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section className="panel" aria-labelledby="img-h">
        <h3 id="img-h">Images</h3>
        {images.length === 0 ? (
          <p className="empty">No image yet. Add one under <code>kvm.images</code> in the config file, with the sha256 from its publisher&apos;s SHA256SUMS.</p>
        ) : (
          <table>
            <thead>
              <tr><th>Name</th><th>Format</th><th>Cache</th><th>Size</th><th>sha256</th><th>Default</th></tr>
            </thead>
            <tbody>
              {images.map((i) => (
                <tr key={i.name}>
                  <td>{i.name}</td>
                  <td>{i.format}</td>
                  <td>{i.cache === 'cached' ? 'cached, verified' : i.cache === 'partial' ? 'partly downloaded' : 'not downloaded'}</td>
                  <td>{i.sizeBytes !== undefined ? formatBytes(i.sizeBytes) : '—'}{i.totalBytes ? ` of ${formatBytes(i.totalBytes)}` : ''}</td>
                  <td><code title={i.sha256}>{i.sha256.slice(0, 16)}…</code></td>
                  <td>{i.isDefault ? 'yes' : ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </section>
  );
}
