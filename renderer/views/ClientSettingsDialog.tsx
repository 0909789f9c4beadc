/**
 * "Client settings" for one proxy or a selection: a format picker (shared/client-settings.ts),
 * a preview without credentials, and Copy / Download, which fetch the file again with the
 * credentials when asked (the password is never rendered into the page, as with Copy URL).
 */
import { useEffect, useId, useState } from 'react';
import { CLIENT_FORMATS, CLIENT_FORMAT_LABELS, type ClientFormat } from '../../shared/client-settings.js';
import { copyText } from '../clipboard.js';
import { downloadFile } from '../download.js';
import { errorMessage } from '../format.js';
import { clientSettings } from '../stores/proxy-actions.js';
import { useUiStore } from '../stores/ui-store.js';
import { Modal } from './ConfirmDialog.js';

type SettingsFile = { text: string; fileName: string; mediaType: string };

export function ClientSettingsDialog({ names, onClose }: { names: readonly string[]; onClose: () => void }) {
  const base = useId();
  const [format, setFormat] = useState<ClientFormat>('env');
  const [withCredentials, setWithCredentials] = useState(true);
  const [preview, setPreview] = useState<{ file?: SettingsFile; error?: string }>({});
  const toast = useUiStore((s) => s.toast);
  const list = names.join(', ');

  useEffect(() => {
    let live = true;
    clientSettings({ names: [...names], format }).then(
      (file) => live && setPreview({ file }),
      (err: unknown) => live && setPreview({ error: errorMessage(err) }),
    );
    return () => {
      live = false;
    };
  }, [names, format]);

  const fetchFile = () => clientSettings({ names: [...names], format, withCredentials });
  async function copy() {
    try {
      await copyText(
        (await fetchFile()).text,
        `the ${CLIENT_FORMAT_LABELS[format]} settings`,
        withCredentials ? ' (they include the passwords)' : '',
      );
    } catch (err) {
      toast(`Could not copy the client settings: ${errorMessage(err)}`, 'error');
    }
  }
  async function download() {
    try {
      downloadFile(await fetchFile());
    } catch (err) {
      toast(`Could not download the client settings: ${errorMessage(err)}`, 'error');
    }
  }

  return (
    <Modal labelledBy={`${base}-h`} onClose={onClose} className="client-settings">
      <h2 id={`${base}-h`}>Client settings for {list}</h2>
      <div className="field">
        <label htmlFor={`${base}-format`}>Format</label>
        <select id={`${base}-format`} value={format} onChange={(e) => setFormat(e.target.value as ClientFormat)}>
          {CLIENT_FORMATS.map((f) => (
            <option key={f} value={f}>
              {CLIENT_FORMAT_LABELS[f]}
            </option>
          ))}
        </select>
      </div>
      <label>
        <input type="checkbox" checked={withCredentials} onChange={(e) => setWithCredentials(e.target.checked)} />{' '}
        Include usernames and passwords when copying or downloading
      </label>
      {preview.error ? (
        <p role="alert" className="error">
          {preview.error}
        </p>
      ) : (
        <pre className="client-settings-preview" aria-label="Preview (without credentials)">
          {preview.file?.text ?? 'loading…'}
        </pre>
      )}
      <div className="dialog-actions">
        <button type="button" disabled={!preview.file} onClick={() => void copy()}>
          Copy
        </button>
        <button type="button" disabled={!preview.file} onClick={() => void download()}>
          Download{preview.file ? ` ${preview.file.fileName}` : ''}
        </button>
        <button type="button" autoFocus onClick={onClose}>
          Close
        </button>
      </div>
    </Modal>
  );
}
