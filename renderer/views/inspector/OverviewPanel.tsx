/** The inspector's Overview: the parsed metadata as labelled fields, the state, the addresses with their sources, and Copy URL. */
import { copyProxyUrl } from '../../copy-url.js';
import { useId, useState } from 'react';
import { ADDRESS_SOURCES, type ProxyInspectionView } from '../../../shared/proxies.js';
import { formatAge } from '../../format.js';
import { copyUrlBlocker } from '../../inspection.js';

const SOURCE_LABELS: Record<(typeof ADDRESS_SOURCES)[number], string> = {
  lease: 'DHCP lease',
  agent: 'guest agent',
  arp: 'ARP table',
};

/** A `dt`/`dd` pair whose value is named by its label (so "Host" finds the host's value). */
function DefinitionRow({ label, children }: { label: string; children: React.ReactNode }) {
  const id = useId();
  return (
    <>
      <dt id={id}>{label}</dt>
      <dd aria-labelledby={id}>{children}</dd>
    </>
  );
}

export function OverviewPanel({ inspection, gone }: { inspection: ProxyInspectionView; gone: boolean }) {
  const { metadata: m, proxy } = inspection;
  const [copying, setCopying] = useState(false);
  // The age as of when the panel opened (a refresh re-renders it): no ticking clock needed here.
  const [now] = useState(() => Date.now());
  const reasonId = useId();
  const blocker = copyUrlBlocker(inspection, gone);
  const silent = ADDRESS_SOURCES.filter((s) => inspection.problems[s] !== undefined);

  async function copyUrl() {
    setCopying(true);
    try {
      await copyProxyUrl(proxy.name);
    } finally {
      setCopying(false);
    }
  }

  return (
    <div className="inspector-overview">
      <section className="panel" aria-labelledby={`${reasonId}-meta`}>
        <h3 id={`${reasonId}-meta`}>Metadata</h3>
        <p className="hint">
          From the domain’s metadata element (namespace urn:egress-proxies:kvm:v1); it holds no secrets.
        </p>
        <dl className="facts">
          <DefinitionRow label="Name">{m.name}</DefinitionRow>
          <DefinitionRow label="Host">{m.host}</DefinitionRow>
          <DefinitionRow label="Owner">{m.owner}</DefinitionRow>
          <DefinitionRow label="Machine type">{m.machineType}</DefinitionRow>
          <DefinitionRow label="Image">{m.image.name}</DefinitionRow>
          <DefinitionRow label="Image sha256">
            <code className="digest">{m.image.sha256}</code>
          </DefinitionRow>
          <DefinitionRow label="Port">{m.port}</DefinitionRow>
          <DefinitionRow label="Created">
            <time dateTime={m.createdAt}>{m.createdAt}</time>{' '}
            <span className="meta">({formatAge(m.createdAt, now)} ago)</span>
          </DefinitionRow>
          <DefinitionRow label="Spec hash">
            <code className="digest">{m.specHash}</code>
          </DefinitionRow>
          <DefinitionRow label="Format version">{m.formatVersion}</DefinitionRow>
          <DefinitionRow label="Extra elements">
            {m.extra.length === 0 ? 'none' : `${m.extra.length} (kept as they are)`}
          </DefinitionRow>
        </dl>
      </section>
      <section className="panel" aria-labelledby={`${reasonId}-net`}>
        <h3 id={`${reasonId}-net`}>State and addresses</h3>
        <dl className="facts">
          <DefinitionRow label="State">
            <span className={`badge state-${proxy.state}`}>{proxy.state}</span>
          </DefinitionRow>
          <DefinitionRow label="Domain">
            <code>{proxy.id}</code>
          </DefinitionRow>
          <DefinitionRow label="Credentials">
            {inspection.hasCredentials
              ? 'stored on this workstation (in the URL)'
              : 'none stored: the URL has no password'}
          </DefinitionRow>
        </dl>
        <h4>Addresses</h4>
        {inspection.addresses.length === 0 ? (
          <p className="meta">
            {proxy.state === 'running' ? 'No address found yet.' : `None: the proxy is ${proxy.state}.`}
          </p>
        ) : (
          <ul className="addresses" aria-label="Addresses">
            {inspection.addresses.map((a) => (
              <li key={`${a.address}-${a.source}`}>
                <code>
                  {a.address}/{a.prefix}
                </code>{' '}
                <span className="badge">{a.source}</span>{' '}
                <span className="meta">
                  from the {SOURCE_LABELS[a.source]}
                  {a.interface ? `, ${a.interface}` : ''}
                  {a.mac ? `, ${a.mac}` : ''}
                </span>
              </li>
            ))}
          </ul>
        )}
        {silent.length > 0 && (
          <>
            <h4>Why a source said nothing</h4>
            <ul className="problems" aria-label="Address source problems">
              {silent.map((s) => (
                <li key={s}>
                  <span className="badge">{s}</span> {inspection.problems[s]}
                </li>
              ))}
            </ul>
          </>
        )}
        <div className="config-actions">
          <button
            type="button"
            className="primary"
            disabled={blocker !== undefined || copying}
            aria-describedby={blocker ? reasonId : undefined}
            onClick={() => void copyUrl()}
          >
            Copy URL
          </button>
          {blocker ? (
            <span id={reasonId} className="hint">
              {blocker}
            </span>
          ) : (
            <span className="hint">Copies the URL with its password to the clipboard; it is not shown here.</span>
          )}
        </div>
      </section>
    </div>
  );
}
