/** The confirmation before a host leaves the config (the Hosts view's Remove). */
import { useState } from 'react';
import { removeHost } from '../stores/host-actions.js';
import { errorMessage } from '../format.js';
import { ConfirmDialog } from './ConfirmDialog.js';
import { Refusal } from './Refusal.js';

export interface RemoveHostDialogProps {
  /** The host's name in the config. */
  name: string;
  /** How many proxies of this app run on it (what the question says becomes of them). */
  proxies: number;
  /** Called once the dialog closes: with the backend's message when the host was removed, without one when cancelled. */
  onDone: (message?: string) => void;
}

/** Asks before removing a host from the config, saying what happens to the proxies on it. */
export function RemoveHostDialog({ name, proxies, onDone }: RemoveHostDialogProps) {
  const [error, setError] = useState<string>();
  const confirm = async () => {
    try {
      onDone(await removeHost(name));
    } catch (err) {
      setError(errorMessage(err));
    }
  };
  return (
    <ConfirmDialog
      title={`Remove host ${name}?`}
      confirmLabel="Remove host"
      onConfirm={() => void confirm()}
      onCancel={() => onDone()}
    >
      <p>
        {name} is removed from the config only: nothing on the host is touched.{' '}
        {proxies === 0
          ? 'No proxy of this app runs on it.'
          : `Its ${proxies} ${proxies === 1 ? 'proxy keeps' : 'proxies keep'} running but ${proxies === 1 ? 'is' : 'are'} no longer managed by this app (add the host again to manage them).`}
      </p>
      <Refusal what="Not removed" error={error} />
    </ConfirmDialog>
  );
}
