/**
 * "Image transfer" under an SSH host: how base images reach it (auto, fetch on the host,
 * upload from this machine), saved at once to the app's settings.json through
 * hosts:setImageTransfer — the file `egress-desk hosts image-transfer` reads and writes —
 * and how the last image got there, with the reason when `auto` fell back to the upload.
 * Read again whenever a launch ends (a launch records what it did).
 */
import { useEffect, useId, useState } from 'react';
import { type HostImageTransfer, IMAGE_TRANSFERS, type ImageTransfer } from '../../shared/app-settings.js';
import { imageTransfer, setImageTransfer } from '../stores/host-actions.js';
import { errorMessage } from '../format.js';
import { isActive, useTasksStore } from '../stores/tasks-store.js';
import { Field } from './Field.js';

const CHOICES: Record<ImageTransfer, { label: string; hint: string }> = {
  auto: {
    label: 'Automatic',
    hint: 'The host downloads the image itself when it can reach the URL (checked from the host each time); otherwise it is uploaded from this machine, saying why.',
  },
  fetch: {
    label: 'The host downloads it',
    hint: 'Always downloaded and checked on the host; a launch fails, saying why, when the host cannot reach the URL.',
  },
  upload: {
    label: 'Upload from this machine',
    hint: 'Always sent from this machine over the SSH connection, as for a host that cannot reach the internet.',
  },
};

function LastTransfer({ last }: { last: NonNullable<HostImageTransfer['last']> }) {
  const when = new Date(last.at).toLocaleString();
  if (last.mode === 'fetch') return <p className="meta">Last image: downloaded by the host itself ({when}).</p>;
  if (!last.reason) return <p className="meta">Last image: uploaded from this machine ({when}).</p>;
  return (
    <p className="notice notice-warn" role="note">
      Last image: uploaded from this machine, not fetched on the host: {last.reason} ({when}).
    </p>
  );
}

export function ImageTransferSection({ host }: { host: string }) {
  const id = useId();
  const [view, setView] = useState<HostImageTransfer>();
  const [error, setError] = useState<string>();
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState(false);
  // How many launches have ended: each may have recorded a transfer, so the section reads again.
  const ended = useTasksStore(
    (s) => Object.values(s.tasks).filter((t) => t.kind === 'proxies:launch' && !isActive(t)).length,
  );

  useEffect(() => {
    let live = true;
    imageTransfer(host).then(
      (v) => live && (setView(v), setError(undefined)),
      (err: unknown) => live && setError(errorMessage(err)),
    );
    return () => {
      live = false;
    };
  }, [host, ended]);

  const choose = async (how: ImageTransfer) => {
    setSaving(true);
    setSaved(false);
    try {
      setView(await setImageTransfer(host, how));
      setError(undefined);
      setSaved(true);
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setSaving(false);
    }
  };

  return (
    <section className="image-transfer" aria-labelledby={`${id}-h`}>
      <h4 id={`${id}-h`}>Image transfer</h4>
      <Field
        id={`${id}-s`}
        label={`How base images reach ${host}`}
        hint={
          <>
            {view ? CHOICES[view.imageTransfer].hint : ''} Kept in{' '}
            {view ? <code>{view.file}</code> : "the app's settings file"}, not in config.yaml;{' '}
            <code>egress-desk hosts image-transfer {host}</code> reads the same.
          </>
        }
      >
        {(c) => (
          <select
            {...c}
            value={view?.imageTransfer ?? ''}
            disabled={!view || saving}
            onChange={(e) => void choose(e.target.value as ImageTransfer)}
          >
            {!view && <option value="">Reading…</option>}
            {IMAGE_TRANSFERS.map((how) => (
              <option key={how} value={how}>
                {CHOICES[how].label}
              </option>
            ))}
          </select>
        )}
      </Field>
      {saved && view && (
        <p role="status" className="meta">
          Saved: {CHOICES[view.imageTransfer].label.toLowerCase()} from the next launch on {host}.
        </p>
      )}
      {error && (
        <p role="alert" className="error">
          Image transfer: {error}
        </p>
      )}
      {view?.last && <LastTransfer last={view.last} />}
    </section>
  );
}
