/** The inspector's Seed: the cloud-init NoCloud files, rebuilt by the backend with the password masked. */
import { MASK, type ProxyInspectionView } from '../../../shared/proxies.js';
import { CodeBlock } from './CodeBlock.js';

const FILES = [
  ['userData', 'user-data'],
  ['metaData', 'meta-data'],
  ['vendorData', 'vendor-data'],
] as const;

export function SeedPanel({ inspection }: { inspection: ProxyInspectionView }) {
  const { seed } = inspection;
  if (!seed) {
    return (
      <div className="empty-state">
        <h3>The seed cannot be shown</h3>
        <p>
          It is rebuilt from the proxy’s metadata and the config, and the config no longer has its host, machine type or
          image ({inspection.metadata.host}, {inspection.metadata.machineType}, {inspection.metadata.image.name}). Add
          them back in Config to see it.
        </p>
      </div>
    );
  }
  return (
    <div className="inspector-code">
      <p className="notice" role="note">
        Credentials are masked: the password appears as <code>{MASK}</code>.{' '}
        {inspection.hasCredentials
          ? 'Copy URL on the Overview gives the real one.'
          : 'No credentials are stored for this proxy.'}
      </p>
      {seed.exact ? (
        <p className="hint">
          Rebuilt from the metadata and the config; it reproduces the spec hash recorded at launch, so this is what the
          guest got.
        </p>
      ) : (
        <p className="notice notice-warn" role="note">
          Approximate: {seed.note ?? 'the rebuilt seed does not reproduce the recorded spec hash.'}
        </p>
      )}
      {FILES.map(([key, file]) => (
        <section key={key} aria-label={file} className="seed-file">
          <h3>
            <code>{file}</code>
          </h3>
          <CodeBlock language="yaml" text={seed[key]} label={`Contents of ${file}`} />
        </section>
      ))}
    </div>
  );
}
