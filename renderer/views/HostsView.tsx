/**
 * The hosts: connection state with its reason, facts once connected, the host-key prompt
 * (a changed key is refused, never trusted from here), the passphrase prompt, and adding,
 * editing and removing hosts; for an SSH host, how base images reach it (ImageTransfer.tsx).
 */
import { type FormEvent, useEffect, useMemo, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { KVMHost } from '../../shared/config.js';
import { type HostStatus, sameHypervisorAs } from '../../shared/hosts.js';
import { useAppConfigStore } from '../stores/app-config-store.js';
import { removeHost } from '../stores/host-actions.js';
import { errorMessage, formatBytes } from '../format.js';
import { useHostsStore } from '../stores/hosts-store.js';
import { useProxiesStore } from '../stores/proxies-store.js';
import { recordKey } from '../../shared/proxy-key.js';
import { useStatsStore } from '../stores/stats-store.js';
import { type HostProxy, HostLoad } from './HostLoad.js';
import { ConfirmDialog } from './ConfirmDialog.js';
import { Field } from './Field.js';
import { HostDialog } from './HostDialog.js';
import { ImageTransferSection } from './ImageTransfer.js';
import { Refusal } from './Refusal.js';
import { SshSettingsSection } from './SshSettings.js';
import { byNumericText } from '../../shared/collate.js';

const STATE_TEXT: Record<HostStatus['state'], string> = {
  connecting: 'connecting',
  connected: 'connected',
  reconnecting: 'reconnecting',
  'auth-needed': 'sign-in needed',
  'host-key-unknown': 'host key unknown',
  error: 'error',
};

function HostKeyPrompt({ host }: { host: HostStatus }) {
  const { trust, trusting, trustError } = useHostsStore(
    useShallow((s) => ({ trust: s.trust, trusting: s.trusting[host.name] === true, trustError: s.trustError[host.name] })),
  );
  const headingId = `trust-${host.name}`;
  return (
    <section className="prompt" role="alertdialog" aria-labelledby={headingId} aria-describedby={`${headingId}-d`}>
      <h3 id={headingId}>Is this the host key of {host.name}?</h3>
      <div id={`${headingId}-d`}>
        <p>
          {host.name} ({host.via}) presented an SSH host key that is not in your known hosts. Compare this fingerprint with the one the host&apos;s
          administrator gives you (on the host: <code>ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub</code>). Trust it only if they match: a
          different key can mean someone is between you and the host.
        </p>
        <p className="fingerprint">
          <code>{host.fingerprint}</code>
        </p>
      </div>
      {trustError && <p role="alert" className="error">{trustError}</p>}
      <button type="button" className="primary" disabled={!host.fingerprint || trusting} onClick={() => void trust(host.name, host.fingerprint!)}>
        {trusting ? 'Trusting…' : 'Trust this key'}
      </button>
    </section>
  );
}

/** A changed host key: refused, with what it means and what to do; there is deliberately no way to accept it here. */
function HostKeyRefused({ host }: { host: HostStatus }) {
  const headingId = `refused-${host.name}`;
  return (
    <section className="prompt refused" role="alert" aria-labelledby={headingId}>
      <h3 id={headingId}>Connection refused: the host key of {host.name} has changed</h3>
      <p>
        {host.name} presented the key <code>{host.fingerprint}</code>, which is not the one recorded in your known hosts. Either the host was reinstalled
        (its administrator can confirm the new fingerprint) or someone is between you and the host. The app does not connect and will not offer to trust it.
      </p>
      <p className="meta">{host.message}</p>
    </section>
  );
}

/** The passphrase of the host's encrypted identity file: tried at once, remembered only when asked (and where is said). */
function PassphrasePrompt({ host }: { host: HostStatus }) {
  const { unlock, unlocking, unlockError } = useHostsStore(
    useShallow((s) => ({ unlock: s.unlock, unlocking: s.unlocking[host.name] === true, unlockError: s.unlockError[host.name] })),
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
        The key <code>{host.keyFile}</code> is encrypted and your SSH agent has no key the host accepts. Enter its passphrase to connect.
      </p>
      <Field id={`${id}-p`} label={`Passphrase for ${host.keyFile}`} error={problem}>
        {(c) => <input {...c} type="password" autoComplete="off" value={passphrase} onChange={(e) => setPassphrase(e.target.value)} />}
      </Field>
      <Field
        id={`${id}-r`}
        label="Remember it"
        checkbox
        hint={store ? (store.available ? `Remembered passphrases are ${store.description}.` : `It cannot be remembered: ${store.description}.`) : 'Used for this session only.'}
      >
        {(c) => <input {...c} type="checkbox" checked={remember && (store?.available ?? false)} disabled={!store?.available} onChange={(e) => setRemember(e.target.checked)} />}
      </Field>
      <button type="submit" className="primary" disabled={!passphrase || busy}>
        {busy ? 'Unlocking…' : 'Unlock and connect'}
      </button>
    </form>
  );
}

const NO_PROXIES: readonly HostProxy[] = [];

function HostCard({ host, proxies, onHost, sameAs, onEdit, onRemove }: { host: HostStatus; proxies: number; onHost: readonly HostProxy[]; sameAs?: string | undefined; onEdit?: () => void; onRemove?: () => void }) {
  const info = host.info;
  const connected = host.state === 'connected';
  const watchLoad = useHostsStore((s) => s.watchLoad);
  const load = useHostsStore((s) => s.loads[host.name]);
  // While the card shows a connected host, its CPU, memory and pools refresh (hosts:load), instead of staying as they were at connect.
  useEffect(() => (connected ? watchLoad(host.name) : undefined), [connected, host.name, watchLoad]);
  const pools = load?.pools ?? info?.pools;
  const prompted = host.state === 'host-key-unknown' || host.needs === 'passphrase' || host.hostKeyMismatch;
  return (
    <article className={`host host-${host.state}`} aria-labelledby={`host-${host.name}`}>
      <div className="host-head">
        <h3 id={`host-${host.name}`}>{host.name}</h3>
        <span className={`badge host-state-${host.state}`}>{host.hostKeyMismatch ? 'refused: host key changed' : STATE_TEXT[host.state]}</span>
        <span className="meta">{host.address === 'local' ? 'this machine' : host.address} · {host.via}</span>
        <span className="host-actions">
          {onEdit && (
            <button type="button" onClick={onEdit} aria-label={`Edit ${host.name}`}>
              Edit
            </button>
          )}
          {onRemove && (
            <button type="button" className="danger" onClick={onRemove} aria-label={`Remove ${host.name}`}>
              Remove
            </button>
          )}
        </span>
      </div>
      {host.message && !prompted && <p className={host.state === 'connected' || host.state === 'reconnecting' ? 'meta' : 'error'}>{host.message}</p>}
      {host.state === 'host-key-unknown' && (
        <>
          <p className="meta">{host.message}</p>
          <HostKeyPrompt host={host} />
        </>
      )}
      {host.hostKeyMismatch && <HostKeyRefused host={host} />}
      {host.needs === 'passphrase' && <PassphrasePrompt host={host} />}
      {host.warnings && host.warnings.length > 0 && (
        <ul className="warnings" aria-label={`SSH config warnings for ${host.name}`}>
          {host.warnings.map((w) => (
            <li key={w}>{w}</li>
          ))}
        </ul>
      )}
      {sameAs && (
        <p className="meta">
          Same hypervisor as <strong>{sameAs}</strong>: its proxies are listed once, each under the entry that launched it.
        </p>
      )}
      <dl className="facts">
        <dt>Proxies</dt>
        <dd>{proxies}</dd>
        {info && (
          <>
            <dt>Hostname</dt>
            <dd>{info.hostname}</dd>
            <dt>Versions</dt>
            <dd>
              libvirt {info.libvirtVersion}, {info.hypervisor} {info.hypervisorVersion}
            </dd>
            <dt>CPU</dt>
            <dd>
              {info.cpus} × {info.cpuModel}
              {info.kvm ? ' (KVM)' : ' (no KVM: emulated, slow)'}
            </dd>
            <dt>Memory</dt>
            <dd>
              {formatBytes(load?.freeMemoryBytes ?? info.freeMemoryBytes)} free of {formatBytes(info.memoryBytes)}
            </dd>
            <dt>Pools</dt>
            <dd>
              {!pools || pools.length === 0
                ? 'none'
                : pools.map((p) => `${p.name}${p.active ? '' : ' (inactive)'}: ${formatBytes(p.availableBytes)} free of ${formatBytes(p.capacityBytes)}`).join('; ')}
            </dd>
            <dt>Networks</dt>
            <dd>{info.networks.length === 0 ? 'none' : info.networks.map((n) => `${n.name}${n.active ? '' : ' (inactive)'}`).join(', ')}</dd>
            <dt>Domains</dt>
            <dd>{info.domainCount}</dd>
          </>
        )}
      </dl>
      <HostLoad host={host.name} info={info} load={load} proxies={onHost} />
      {host.address !== 'local' && <ImageTransferSection host={host.name} />}
      {host.address !== 'local' && <SshSettingsSection host={host.name} />}
    </article>
  );
}

/** Asks before removing a host from the config, saying what happens to the proxies on it. */
function RemoveHostDialog({ name, proxies, onDone }: { name: string; proxies: number; onDone: (message?: string) => void }) {
  const [error, setError] = useState<string>();
  const confirm = async () => {
    try {
      onDone(await removeHost(name));
    } catch (err) {
      setError(errorMessage(err));
    }
  };
  return (
    <ConfirmDialog title={`Remove host ${name}?`} confirmLabel="Remove host" onConfirm={() => void confirm()} onCancel={() => onDone()}>
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

export function HostsView() {
  const { hosts, loaded, error } = useHostsStore(useShallow((s) => ({ hosts: s.hosts, loaded: s.loaded, error: s.error })));
  const proxies = useProxiesStore((s) => s.proxies);
  const configHosts = useAppConfigStore((s) => s.state?.config?.kvm?.hosts);
  const [dialog, setDialog] = useState<{ kind: 'add' } | { kind: 'edit'; host: KVMHost } | { kind: 'remove'; name: string }>();
  const [notice, setNotice] = useState<string>();
  const same = sameHypervisorAs(hosts);
  const counts = new Map<string, number>();
  for (const p of Object.values(proxies)) counts.set(p.host, (counts.get(p.host) ?? 0) + 1);
  const byHost = useMemo(() => {
    const out = new Map<string, HostProxy[]>();
    for (const p of Object.values(proxies)) {
      const list = out.get(p.host);
      if (list) list.push({ key: recordKey(p), name: p.name });
      else out.set(p.host, [{ key: recordKey(p), name: p.name }]);
    }
    for (const list of out.values()) list.sort((a, b) => byNumericText(a.name, b.name));
    return out;
  }, [proxies]);
  // While the view is shown the backend samples every 5 s (the CPU meters); no history is needed here.
  const watchStats = useStatsStore((s) => s.watch);
  useEffect(() => {
    try {
      return watchStats({ seed: false });
    } catch {
      return undefined; // no bridge: the frame already says so
    }
  }, [watchStats]);
  const configHost = (name: string) => configHosts?.find((h) => h.name === name);
  return (
    <section className="view" aria-labelledby="hosts-h">
      <div className="view-head">
        <h2 id="hosts-h">Hosts</h2>
        <span className="meta">{loaded ? `${hosts.length} in the config` : 'connecting…'}</span>
        <div className="toolbar" role="toolbar" aria-label="Host actions">
          <button type="button" className="primary" disabled={!configHosts} title={configHosts ? undefined : 'The config has no kvm block: fix it in the Config view'} onClick={() => setDialog({ kind: 'add' })}>
            Add host
          </button>
        </div>
      </div>
      {notice && (
        <p role="status" className="notice">
          {notice}
        </p>
      )}
      {error && <p role="alert" className="error">Cannot list the hosts: {error}. Fix the config (see the Config view) and reload the window.</p>}
      {loaded && !error && hosts.length === 0 && (
        <div className="empty-state">
          <h3>No host yet</h3>
          <p>
            Add one: <code>local</code> for this machine, or a remote machine reached over SSH.
          </p>
          <button type="button" disabled={!configHosts} onClick={() => setDialog({ kind: 'add' })}>Add a host</button>
        </div>
      )}
      {dialog?.kind === 'add' && <HostDialog onClose={() => setDialog(undefined)} />}
      {dialog?.kind === 'edit' && <HostDialog editing={dialog.host} onClose={() => setDialog(undefined)} />}
      {dialog?.kind === 'remove' && (
        <RemoveHostDialog
          name={dialog.name}
          proxies={counts.get(dialog.name) ?? 0}
          onDone={(message) => {
            setDialog(undefined);
            if (message) setNotice(message);
          }}
        />
      )}
      {hosts.length > 0 && (
        <>
          <table aria-label="Host summary">
            <thead>
              <tr><th>Name</th><th>State</th><th>Reached via</th><th>Proxies</th></tr>
            </thead>
            <tbody>
              {hosts.map((h) => (
                <tr key={h.name}>
                  <td>{h.name}</td>
                  <td><span className={`badge host-state-${h.state}`}>{STATE_TEXT[h.state]}</span></td>
                  <td>
                    {h.via}
                    {same.get(h.name) && <span className="meta"> (same hypervisor as {same.get(h.name)})</span>}
                  </td>
                  <td>{counts.get(h.name) ?? 0}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <div className="host-cards">
            {hosts.map((h) => (
              <HostCard
                key={h.name}
                host={h}
                proxies={counts.get(h.name) ?? 0}
                onHost={byHost.get(h.name) ?? NO_PROXIES}
                sameAs={same.get(h.name)}
                {...(configHost(h.name)
                  ? {
                      onEdit: () => {
                        setNotice(undefined);
                        setDialog({ kind: 'edit', host: configHost(h.name)! });
                      },
                      onRemove: () => {
                        setNotice(undefined);
                        setDialog({ kind: 'remove', name: h.name });
                      },
                    }
                  : {})}
              />
            ))}
          </div>
        </>
      )}
    </section>
  );
}
