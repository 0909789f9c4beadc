/**
 * The hosts: a summary table, then a card for each (HostCard.tsx: connection state with its
 * reason, facts once connected, the host-key and passphrase prompts, and for an SSH host how
 * base images reach it), and adding, editing and removing hosts.
 */
import { useEffect, useMemo, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { KVMHost } from '../../shared/config.js';
import { sameHypervisorAs } from '../../shared/hosts.js';
import { useAppConfigStore } from '../stores/app-config-store.js';
import { useHostsStore } from '../stores/hosts-store.js';
import { useProxiesStore } from '../stores/proxies-store.js';
import { recordKey } from '../../shared/proxy-key.js';
import { useStatsStore } from '../stores/stats-store.js';
import { ColumnHeads } from './ColumnHeads.js';
import type { HostProxy } from './HostLoad.js';
import { HostCard } from './HostCard.js';
import { HostDialog } from './HostDialog.js';
import { HOST_STATE_TEXT } from './host-state.js';
import { RemoveHostDialog } from './RemoveHostDialog.js';
import { byNumericText } from '../../shared/collate.js';

const NO_PROXIES: readonly HostProxy[] = [];

/** The Hosts view: what the config lists and how each host is reached, with Add, Edit and Remove. */
export function HostsView() {
  const { hosts, loaded, error } = useHostsStore(
    useShallow((s) => ({ hosts: s.hosts, loaded: s.loaded, error: s.error })),
  );
  const proxies = useProxiesStore((s) => s.proxies);
  const configHosts = useAppConfigStore((s) => s.state?.config?.kvm?.hosts);
  const [dialog, setDialog] = useState<
    { kind: 'add' } | { kind: 'edit'; host: KVMHost } | { kind: 'remove'; name: string }
  >();
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
          <button
            type="button"
            className="primary"
            disabled={!configHosts}
            title={configHosts ? undefined : 'The config has no kvm block: fix it in the Config view'}
            onClick={() => setDialog({ kind: 'add' })}
          >
            Add host
          </button>
        </div>
      </div>
      {notice && (
        <p role="status" className="notice">
          {notice}
        </p>
      )}
      {error && (
        <p role="alert" className="error">
          Cannot list the hosts: {error}. Fix the config (see the Config view) and reload the window.
        </p>
      )}
      {loaded && !error && hosts.length === 0 && (
        <div className="empty-state">
          <h3>No host yet</h3>
          <p>
            Add one: <code>local</code> for this machine, or a remote machine reached over SSH.
          </p>
          <button type="button" disabled={!configHosts} onClick={() => setDialog({ kind: 'add' })}>
            Add a host
          </button>
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
            <ColumnHeads names={['Name', 'State', 'Reached via', 'Proxies']} />
            <tbody>
              {hosts.map((h) => (
                <tr key={h.name}>
                  <td>{h.name}</td>
                  <td>
                    <span className={`badge host-state-${h.state}`}>{HOST_STATE_TEXT[h.state]}</span>
                  </td>
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
