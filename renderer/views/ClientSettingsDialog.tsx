/**
 * "Client settings": a format picker (shared/client-settings.ts), a preview without
 * credentials, and Copy / Download, which fetch the file again with the credentials when
 * asked (the password is never rendered into the page, as with Copy URL). One dialog for
 * whatever the settings are of: the caller gives the title and how to fetch a format's file
 * (a proxy or a selection: {@link ProxyClientSettingsDialog}; the gateway:
 * GatewayClientSettingsDialog, whose fields go above the picker).
 */
import { type ReactNode, useCallback, useEffect, useId, useState } from 'react';
import {
  CLIENT_FORMATS,
  CLIENT_FORMAT_LABELS,
  type ClientFormat,
  type ClientSettingsFile,
} from '../../shared/client-settings.js';
import { copyText } from '../clipboard.js';
import { downloadFile } from '../download.js';
import { errorMessage } from '../format.js';
import { clientSettings } from '../stores/proxy-actions.js';
import { useUiStore } from '../stores/ui-store.js';
import { Modal } from './ConfirmDialog.js';

/** Fetches the file of a format, credentials only when asked. */
export type FetchSettingsFile = (format: ClientFormat, withCredentials: boolean) => Promise<ClientSettingsFile>;

export interface ClientSettingsDialogProps {
  /** The dialog's heading and accessible name. */
  title: string;
  /**
   * A new function fetches the preview again (the caller memoises it over what it asks for);
   * undefined while the fields above have a problem: nothing is fetched, nothing can be copied.
   */
  fetchFile: FetchSettingsFile | undefined;
  /** The checkbox's words: what "credentials" are here. */
  credentialsLabel: string;
  /** What the toast adds when a copy includes them. */
  credentialsNote: string;
  /** Fields above the format picker. */
  children?: ReactNode;
  onClose: () => void;
}

export function ClientSettingsDialog({
  title,
  fetchFile,
  credentialsLabel,
  credentialsNote,
  children,
  onClose,
}: ClientSettingsDialogProps) {
  const base = useId();
  const [format, setFormat] = useState<ClientFormat>('env');
  const [withCredentials, setWithCredentials] = useState(true);
  // The last answer, and the fetch it answered: a newer fetch shows the older file until its own comes.
  const [preview, setPreview] = useState<{ of?: FetchSettingsFile; file?: ClientSettingsFile; error?: string }>({});
  const toast = useUiStore((s) => s.toast);

  useEffect(() => {
    if (!fetchFile) return;
    let live = true;
    fetchFile(format, false).then(
      (file) => live && setPreview({ of: fetchFile, file }),
      (err: unknown) => live && setPreview({ of: fetchFile, error: errorMessage(err) }),
    );
    return () => {
      live = false;
    };
  }, [fetchFile, format]);

  const error = fetchFile && preview.of === fetchFile ? preview.error : undefined;
  const ready = !!fetchFile && !!preview.file && !error;
  async function copy() {
    try {
      await copyText(
        (await fetchFile!(format, withCredentials)).text,
        `the ${CLIENT_FORMAT_LABELS[format]} settings`,
        withCredentials && format !== 'pac' ? credentialsNote : '',
      );
    } catch (err) {
      toast(`Could not copy the client settings: ${errorMessage(err)}`, 'error');
    }
  }
  async function download() {
    try {
      downloadFile(await fetchFile!(format, withCredentials));
    } catch (err) {
      toast(`Could not download the client settings: ${errorMessage(err)}`, 'error');
    }
  }

  return (
    <Modal labelledBy={`${base}-h`} onClose={onClose} className="client-settings">
      <h2 id={`${base}-h`}>{title}</h2>
      {children}
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
        {credentialsLabel}
      </label>
      {format === 'pac' && (
        <p className="meta">A PAC file cannot hold credentials: the browser asks for them when the proxy does.</p>
      )}
      {error ? (
        <p role="alert" className="error">
          {error}
        </p>
      ) : (
        // Focusable: a long file scrolls, and a keyboard must reach it too (axe: scrollable-region-focusable).
        <pre className="client-settings-preview" aria-label="Preview (without credentials)" tabIndex={0}>
          {!fetchFile ? 'Fix the fields above to see the settings.' : (preview.file?.text ?? 'loading…')}
        </pre>
      )}
      <div className="dialog-actions">
        <button type="button" disabled={!ready} onClick={() => void copy()}>
          Copy
        </button>
        <button type="button" disabled={!ready} onClick={() => void download()}>
          Download{ready ? ` ${preview.file!.fileName}` : ''}
        </button>
        <button type="button" autoFocus onClick={onClose}>
          Close
        </button>
      </div>
    </Modal>
  );
}

/** Client settings for one proxy or a selection (`proxies:clientSettings`). */
export function ProxyClientSettingsDialog({ names, onClose }: { names: readonly string[]; onClose: () => void }) {
  const fetchFile = useCallback<FetchSettingsFile>(
    (format, withCredentials) =>
      clientSettings({ names: [...names], format, ...(withCredentials ? { withCredentials } : {}) }),
    [names],
  );
  return (
    <ClientSettingsDialog
      title={`Client settings for ${names.join(', ')}`}
      fetchFile={fetchFile}
      credentialsLabel="Include usernames and passwords when copying or downloading"
      credentialsNote=" (they include the passwords)"
      onClose={onClose}
    />
  );
}
