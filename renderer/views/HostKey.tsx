/**
 * A host's SSH host key on its card: an unknown key is shown with its fingerprint and trusted
 * only when the person says so; a changed key is refused, and deliberately cannot be trusted
 * from here (it may mean someone is between the app and the host).
 */
import { useShallow } from 'zustand/react/shallow';
import type { HostStatus } from '../../shared/hosts.js';
import { useHostsStore } from '../stores/hosts-store.js';

/** The host key of a host we have not seen: its fingerprint, how to check it, and Trust this key. */
export function HostKeyPrompt({ host }: { host: HostStatus }) {
  const { trust, trusting, trustError } = useHostsStore(
    useShallow((s) => ({
      trust: s.trust,
      trusting: s.trusting[host.name] === true,
      trustError: s.trustError[host.name],
    })),
  );
  const headingId = `trust-${host.name}`;
  return (
    <section className="prompt" role="alertdialog" aria-labelledby={headingId} aria-describedby={`${headingId}-d`}>
      <h3 id={headingId}>Is this the host key of {host.name}?</h3>
      <div id={`${headingId}-d`}>
        <p>
          {host.name} ({host.via}) presented an SSH host key that is not in your known hosts. Compare this fingerprint
          with the one the host&apos;s administrator gives you (on the host:{' '}
          <code>ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub</code>). Trust it only if they match: a different key
          can mean someone is between you and the host.
        </p>
        <p className="fingerprint">
          <code>{host.fingerprint}</code>
        </p>
      </div>
      {trustError && (
        <p role="alert" className="error">
          {trustError}
        </p>
      )}
      <button
        type="button"
        className="primary"
        disabled={!host.fingerprint || trusting}
        onClick={() => void trust(host.name, host.fingerprint!)}
      >
        {trusting ? 'Trusting…' : 'Trust this key'}
      </button>
    </section>
  );
}

/** A changed host key: refused, with what it means and what to do; there is deliberately no way to accept it here. */
export function HostKeyRefused({ host }: { host: HostStatus }) {
  const headingId = `refused-${host.name}`;
  return (
    <section className="prompt refused" role="alert" aria-labelledby={headingId}>
      <h3 id={headingId}>Connection refused: the host key of {host.name} has changed</h3>
      <p>
        {host.name} presented the key <code>{host.fingerprint}</code>, which is not the one recorded in your known
        hosts. Either the host was reinstalled (its administrator can confirm the new fingerprint) or someone is between
        you and the host. The app does not connect and will not offer to trust it.
      </p>
      <p className="meta">{host.message}</p>
    </section>
  );
}
