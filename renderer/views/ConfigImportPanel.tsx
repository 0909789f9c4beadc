/**
 * The Config view's Import panel: pasted (or opened from the menu) config text, previewed
 * against the current config first, then imported after a confirmation.
 */
import { useEffect, useState } from 'react';
import { formatIssue } from '../../shared/config.js';
import type { ConfigPreview } from '../../shared/ipc.js';
import { importConfig, previewImport } from '../stores/config-actions.js';
import { useUiStore } from '../stores/ui-store.js';
import { ConfigDiffView } from './ConfigDiffView.js';
import { ConfirmDialog } from './ConfirmDialog.js';
import { Field } from './Field.js';
import { useRequestState } from './request-state.js';

/** Import: the text, Preview import (its problems or its changes), and Import once the preview is current and clean. */
export function ConfigImportPanel() {
  const toast = useUiStore((s) => s.toast);
  const [text, setText] = useState('');
  const [preview, setPreview] = useState<ConfigPreview>();
  const [previewed, setPreviewed] = useState<string>();
  const { busy, error, run } = useRequestState();
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
    await run(
      async () => {
        const p = await previewImport(value, as);
        setPreview(p);
        setPreviewed(value);
      },
      () => setPreview(undefined),
    );
  }

  async function runImport() {
    setConfirming(false);
    await run(async () => {
      // Resolves once the config store shows the imported config (config:changed).
      const result = await importConfig(text, syntax);
      toast(`Imported the config into ${result.path}.`);
      setPreview(undefined);
      setPreviewed(undefined);
      setText('');
    });
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
                {preview.error && (
                  <li>
                    <code>{preview.error}</code>
                  </li>
                )}
                {preview.issues.map((i) => (
                  <li key={formatIssue(i)}>
                    <code>{formatIssue(i)}</code>
                  </li>
                ))}
              </ul>
            </section>
          ) : undefined
        }
      >
        {(c) => (
          <textarea
            {...c}
            className="config-text"
            rows={14}
            spellCheck={false}
            value={text}
            onChange={(e) => setText(e.target.value)}
          />
        )}
      </Field>
      <div className="config-actions">
        <button type="button" disabled={busy || text.length === 0} onClick={() => void runPreview()}>
          Preview import
        </button>
        <button type="button" className="primary" disabled={!canImport} onClick={() => setConfirming(true)}>
          Import
        </button>
        {preview && !current && <span className="meta">The text changed since the preview: preview it again.</span>}
      </div>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      {current && preview.diff && (
        <section aria-label="Import changes">
          <h4>What the import changes</h4>
          <ConfigDiffView diff={preview.diff} />
        </section>
      )}
      {confirming && preview && (
        <ConfirmDialog
          title="Replace the config?"
          confirmLabel="Import"
          onCancel={() => setConfirming(false)}
          onConfirm={() => void runImport()}
        >
          <p>
            The config file is replaced by the pasted text.{' '}
            {preview.diff?.unchanged ? 'Nothing changes.' : 'The changes are listed in the preview.'}
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}
