/** The Config view's Export panel: the config in one of the export formats, shown, copied or downloaded. */
import { useState } from 'react';
import type { ExportFormat } from '../../shared/ipc.js';
import { downloadFile } from '../download.js';
import { exportConfig } from '../stores/config-actions.js';
import { errorMessage } from '../format.js';
import { useUiStore } from '../stores/ui-store.js';
import { useRequestState } from './request-state.js';

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

/** Export: a format, Show export, then Copy or Download what was shown. */
export function ConfigExportPanel() {
  const toast = useUiStore((s) => s.toast);
  const [format, setFormat] = useState<ExportFormat>('operator');
  const [exported, setExported] = useState<Exported>();
  const { busy, error, run } = useRequestState();

  async function show() {
    await run(
      async () => setExported(await exportConfig(format)),
      () => setExported(undefined),
    );
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
            <option key={f} value={f}>
              {FORMAT_LABELS[f]}
            </option>
          ))}
        </select>
        <button type="button" className="primary" disabled={busy} onClick={() => void show()}>
          Show export
        </button>
        <button type="button" disabled={!exported} onClick={() => void copy()}>
          Copy
        </button>
        <button type="button" disabled={!exported} onClick={download}>
          Download
        </button>
      </div>
      {error && (
        <p role="alert" className="error">
          Cannot export: {error}
        </p>
      )}
      {exported && (
        <textarea
          className="config-text"
          aria-label="Exported config"
          readOnly
          rows={14}
          spellCheck={false}
          value={exported.text}
        />
      )}
    </section>
  );
}
