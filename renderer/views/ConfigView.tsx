/** The config this app runs from: its problems, if any, its hosts, machine types and images as written, and export and
import (with a preview of the changes). */
import { downloadFile } from '../download.js';
import { useEffect, useState } from 'react';
import { formatIssue } from '../../shared/config.js';
import type { Change, ConfigDiff } from '../../shared/config-diff.js';
import type { ConfigPreview, ExportFormat } from '../../shared/ipc.js';
import { useAppConfigStore } from '../stores/app-config-store.js';
import { exportConfig, importConfig, previewImport } from '../stores/config-actions.js';
import { errorMessage } from '../format.js';
import { useUiStore } from '../stores/ui-store.js';
import { ConfirmDialog } from './ConfirmDialog.js';
import { Field } from './Field.js';

const FORMAT_LABELS: Record<ExportFormat, string> = {
  operator: 'Operator YAML',
  json: 'JSON',
  'proxy-list': 'Proxy list',
  pac: 'PAC file',
};
const FORMATS: ExportFormat[] = ['operator', 'json', 'proxy-list', 'pac'];

interface Exported {
  text: string;
  fileName: string;
  mediaType: string;
}

function ExportPanel() {
  const toast = useUiStore((s) => s.toast);
  const [format, setFormat] = useState<ExportFormat>('operator');
  const [exported, setExported] = useState<Exported>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  async function show() {
    setBusy(true);
    setError(undefined);
    try {
      setExported(await exportConfig(format));
    } catch (err) {
      setExported(undefined);
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  }

  async function copy() {
    if (!exported) return;
    try {
      await navigator.clipboard.writeText(exported.text);
      toast(`Copied the export (${FORMAT_LABELS[format]}).`);
    } catch (err) {
      toast(`Could not copy the export: ${errorMessage(err)}`, 'error');
    }
  }

  function download() {
    if (!exported) return;
    downloadFile(exported);
  }

  return (
    <section className="panel" aria-labelledby="cfg-export-h">
      <h3 id="cfg-export-h">Export</h3>
      <div className="config-actions">
        <label htmlFor="cfg-export-format">Format</label>
        <select id="cfg-export-format" value={format} onChange={(e) => setFormat(e.target.value as ExportFormat)}>
          {FORMATS.map((f) => (
            <option key={f} value={f}>{FORMAT_LABELS[f]}</option>
          ))}
        </select>
        <button type="button" className="primary" disabled={busy} onClick={() => void show()}>Show export</button>
        <button type="button" disabled={!exported} onClick={() => void copy()}>Copy</button>
        <button type="button" disabled={!exported} onClick={download}>Download</button>
      </div>
      {error && <p role="alert" className="error">Cannot export: {error}</p>}
      {exported && (
        <textarea className="config-text" aria-label="Exported config" readOnly rows={14} spellCheck={false} value={exported.text} />
      )}
    </section>
  );
}

function show(value: unknown): string {
  return value === undefined ? '' : JSON.stringify(value);
}

function ChangeList({ title, changes }: { title: string; changes: Change[] }) {
  if (changes.length === 0) return null;
  return (
    <>
      <h4>{title}</h4>
      <ul className="diff" aria-label={title}>
        {changes.map((c) => (
          <li key={`${c.kind}:${c.key}`} className={`diff-${c.kind}`}>
            <span className="diff-kind">{c.kind}</span> <code>{c.key}</code>
            {c.kind === 'changed' && <span className="meta"> {show(c.before)} → {show(c.after)}</span>}
            {c.kind === 'added' && <span className="meta"> {show(c.after)}</span>}
          </li>
        ))}
      </ul>
    </>
  );
}

function DiffView({ diff }: { diff: ConfigDiff }) {
  if (diff.unchanged) return <p className="empty">Nothing would change: the text is the current config.</p>;
  return (
    <div className="diff-view">
      <ChangeList title="Hosts" changes={diff.hosts} />
      <ChangeList title="Machine types" changes={diff.machineTypes} />
      <ChangeList title="Images" changes={diff.images} />
      <ChangeList title="Other fields" changes={diff.fields} />
    </div>
  );
}

function ImportPanel() {
  const toast = useUiStore((s) => s.toast);
  const [text, setText] = useState('');
  const [preview, setPreview] = useState<ConfigPreview>();
  const [previewed, setPreviewed] = useState<string>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [syntax, setSyntax] = useState<'yaml' | 'json'>('yaml');
  const [source, setSource] = useState<string>();
  const current = preview && previewed === text;

  // A file opened from the native menu (File → Import Config): take it and preview it at once.
  const takeImportDrafts = useUiStore((s) => s.takeImportDrafts);
  useEffect(
    () =>
      takeImportDrafts((draft) => {
        setText(draft.text);
        setSyntax(draft.syntax);
        setSource(draft.fileName);
        void runPreview(draft.text, draft.syntax);
      }),
    // runPreview only sets state; the drafts are followed once.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [takeImportDrafts],
  );
  const canImport = Boolean(current && preview.ok && !busy);

  async function runPreview(value = text, as = syntax) {
    setBusy(true);
    setError(undefined);
    try {
      const p = await previewImport(value, as);
      setPreview(p);
      setPreviewed(value);
    } catch (err) {
      setPreview(undefined);
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  }

  async function runImport() {
    setConfirming(false);
    setBusy(true);
    setError(undefined);
    try {
      // Resolves once the config store shows the imported config (config:changed).
      const result = await importConfig(text, syntax);
      toast(`Imported the config into ${result.path}.`);
      setPreview(undefined);
      setPreviewed(undefined);
      setText('');
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="panel" aria-labelledby="cfg-import-h">
      <h3 id="cfg-import-h">Import</h3>
      <p className="hint">Paste a config (YAML or JSON). Preview it first: importing replaces the config file.</p>
      {source && (
        <p className="meta">
          From <code>{source}</code> ({syntax === 'json' ? 'strict JSON' : 'YAML'})
        </p>
      )}
      {/* The text's problems stand under it, as a field's do: the control is invalid and described by them. */}
      <Field
        id="cfg-import-text"
        label="Config to import"
        hideLabel
        announce={false}
        error={
          current && !preview.ok ? (
            <section role="alert" aria-label="Import problems" className="import-problems">
              <h4>The text cannot be imported</h4>
              <ul className="issues">
                {preview.error && <li><code>{preview.error}</code></li>}
                {preview.issues.map((i) => (
                  <li key={formatIssue(i)}><code>{formatIssue(i)}</code></li>
                ))}
              </ul>
            </section>
          ) : undefined
        }
      >
        {(c) => <textarea {...c} className="config-text" rows={14} spellCheck={false} value={text} onChange={(e) => setText(e.target.value)} />}
      </Field>
      <div className="config-actions">
        <button type="button" disabled={busy || text.length === 0} onClick={() => void runPreview()}>Preview import</button>
        <button type="button" className="primary" disabled={!canImport} onClick={() => setConfirming(true)}>Import</button>
        {preview && !current && <span className="meta">The text changed since the preview: preview it again.</span>}
      </div>
      {error && <p role="alert" className="error">{error}</p>}
      {current && preview.diff && (
        <section aria-label="Import changes">
          <h4>What the import changes</h4>
          <DiffView diff={preview.diff} />
        </section>
      )}
      {confirming && preview && (
        <ConfirmDialog title="Replace the config?" confirmLabel="Import" onCancel={() => setConfirming(false)} onConfirm={() => void runImport()}>
          <p>The config file is replaced by the pasted text. {preview.diff?.unchanged ? 'Nothing changes.' : 'The changes are listed in the preview.'}</p>
        </ConfirmDialog>
      )}
    </section>
  );
}

export function ConfigView() {
  const state = useAppConfigStore((s) => s.state);
  const kvm = state?.config?.kvm;
  return (
    <section className="view view-config" aria-labelledby="config-h">
      <div className="view-head">
        <h2 id="config-h">Config</h2>
        {state && <span className="meta">file <code>{state.path}</code></span>}
      </div>
      {state?.error && (
        <section role="alert" className="panel">
          <h3>The config file cannot be read</h3>
          <p className="error">{state.error}</p>
          {state.lastGood && <p>The app keeps working on the last config that loaded; changes from the app are refused until the file loads again.</p>}
        </section>
      )}
      {state?.issues && (
        <section role="alert" className="panel">
          <h3>The config file has problems</h3>
          <p>
            Fix them in the file; it is left as it is until then.
            {state.lastGood && ' The app keeps working on the last config that loaded; changes from the app are refused until the file loads again.'}
          </p>
          <ul className="issues">
            {state.issues.map((i) => (
              <li key={formatIssue(i)}><code>{i.line !== undefined ? `line ${i.line}: ` : ''}{formatIssue(i)}</code></li>
            ))}
          </ul>
        </section>
      )}
      {kvm && (
        <div className="config-grid">
          <section className="panel" aria-labelledby="cfg-hosts-h">
            <h3 id="cfg-hosts-h">Hosts</h3>
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
          <section className="panel" aria-labelledby="cfg-types-h">
            <h3 id="cfg-types-h">Machine types</h3>
            <table>
              <thead>
                <tr><th>Name</th><th>vCPUs</th><th>Memory</th><th>Disk</th></tr>
              </thead>
              <tbody>
                {Object.entries(kvm.machineTypes).map(([name, m]) => (
                  <tr key={name}>
                    <td>{name}</td><td>{m.vcpus}</td><td>{m.memoryMiB} MiB</td><td>{m.diskGiB ?? 10} GiB</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
          <section className="panel" aria-labelledby="cfg-images-h">
            <h3 id="cfg-images-h">Images</h3>
            {Object.keys(kvm.images ?? {}).length === 0 ? (
              <p className="empty">No image yet. Add one under <code>kvm.images</code> in the config file, with the sha256 from its publisher&apos;s SHA256SUMS.</p>
            ) : (
              <table>
                <thead>
                  <tr><th>Name</th><th>Format</th><th>sha256</th></tr>
                </thead>
                <tbody>
                  {Object.entries(kvm.images ?? {}).map(([name, img]) => (
                    <tr key={name}>
                      <td>{name}</td><td>{img.format ?? 'qcow2'}</td><td><code>{img.sha256.slice(0, 16)}…</code></td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
        </div>
      )}
      <div className="config-grid config-io">
        <ExportPanel />
        <ImportPanel />
      </div>
    </section>
  );
}
