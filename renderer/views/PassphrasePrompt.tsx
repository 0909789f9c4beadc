/** The passphrase prompt on a host's card, shown when the host's identity file is encrypted and no agent key is accepted. */
import { type FormEvent, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { HostStatus } from '../../shared/hosts.js';
import { useHostsStore } from '../stores/hosts-store.js';
import { Field } from './Field.js';

/** The passphrase of the host's encrypted identity file: tried at once, remembered only when asked (and where is said). */
export function PassphrasePrompt({ host }: { host: HostStatus }) {
  const { unlock, unlocking, unlockError } = useHostsStore(
    useShallow((s) => ({
      unlock: s.unlock,
      unlocking: s.unlocking[host.name] === true,
      unlockError: s.unlockError[host.name],
    })),
  );
  const [passphrase, setPassphrase] = useState('');
  const [remember, setRemember] = useState(false);
  const id = `unlock-${host.name}`;
  const store = host.secretStore;
  const busy = unlocking;
  const problem = unlockError;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!passphrase || busy) return;
    void unlock(host.name, passphrase, remember && (store?.available ?? false)).then(() => setPassphrase(''));
  };
  return (
    <form className="prompt" aria-labelledby={`${id}-h`} onSubmit={submit}>
      <h3 id={`${id}-h`}>Passphrase needed for {host.name}</h3>
      <p>
        The key <code>{host.keyFile}</code> is encrypted and your SSH agent has no key the host accepts. Enter its
        passphrase to connect.
      </p>
      <Field id={`${id}-p`} label={`Passphrase for ${host.keyFile}`} error={problem}>
        {(c) => (
          <input
            {...c}
            type="password"
            autoComplete="off"
            value={passphrase}
            onChange={(e) => setPassphrase(e.target.value)}
          />
        )}
      </Field>
      <Field
        id={`${id}-r`}
        label="Remember it"
        checkbox
        hint={
          store
            ? store.available
              ? `Remembered passphrases are ${store.description}.`
              : `It cannot be remembered: ${store.description}.`
            : 'Used for this session only.'
        }
      >
        {(c) => (
          <input
            {...c}
            type="checkbox"
            checked={remember && (store?.available ?? false)}
            disabled={!store?.available}
            onChange={(e) => setRemember(e.target.checked)}
          />
        )}
      </Field>
      <button type="submit" className="primary" disabled={!passphrase || busy}>
        {busy ? 'Unlocking…' : 'Unlock and connect'}
      </button>
    </form>
  );
}
