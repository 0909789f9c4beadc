/** The hosts: connection state with its reason, facts once connected, and the host-key prompt. */
import type { HostStatus } from '../../shared/hosts.js';
import { backend } from '../backend.js';
import { formatBytes } from '../format.js';
import { useHostsStore } from '../stores/hosts-store.js';
import { useProxiesStore } from '../stores/proxies-store.js';
import { useUiStore } from '../stores/ui-store.js';

const STATE_TEXT: Record<HostStatus['state'], string> = {
  connecting: 'connecting',
  connected: 'connected',
  'auth-needed': 'sign-in needed',
  'host-key-unknown': 'host key unknown',
  error: 'error',
};

function HostKeyPrompt({ host }: { host: HostStatus }) {
  const { trust, trusting, trustError } = useHostsStore();
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
      {trustError[host.name] && <p role="alert" className="error">{trustError[host.name]}</p>}
      <button type="button" className="primary" disabled={!host.fingerprint || trusting[host.name]} onClick={() => void trust(backend(), host.name, host.fingerprint!)}>
        {trusting[host.name] ? 'Trusting…' : 'Trust this key'}
      </button>
    </section>
  );
}

function HostCard({ host, proxies }: { host: HostStatus; proxies: number }) {
  const info = host.info;
  return (
    <article className={`host host-${host.state}`} aria-labelledby={`host-${host.name}`}>
      <div className="host-head">
        <h3 id={`host-${host.name}`}>{host.name}</h3>
        <span className={`badge host-state-${host.state}`}>{STATE_TEXT[host.state]}</span>
        <span className="meta">{host.address === 'local' ? 'this machine' : host.address} · {host.via}</span>
      </div>
      {host.message && <p className={host.state === 'connected' ? 'meta' : 'error'}>{host.message}</p>}
      {host.state === 'host-key-unknown' && <HostKeyPrompt host={host} />}
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
              {formatBytes(info.freeMemoryBytes)} free of {formatBytes(info.memoryBytes)}
            </dd>
            <dt>Pools</dt>
            <dd>
              {info.pools.length === 0
                ? 'none'
                : info.pools.map((p) => `${p.name}${p.active ? '' : ' (inactive)'}: ${formatBytes(p.availableBytes)} free of ${formatBytes(p.capacityBytes)}`).join('; ')}
            </dd>
            <dt>Networks</dt>
            <dd>{info.networks.length === 0 ? 'none' : info.networks.map((n) => `${n.name}${n.active ? '' : ' (inactive)'}`).join(', ')}</dd>
            <dt>Domains</dt>
            <dd>{info.domainCount}</dd>
          </>
        )}
      </dl>
    </article>
  );
}

export function HostsView() {
  const { hosts, loaded, error } = useHostsStore();
  const proxies = useProxiesStore((s) => s.proxies);
  const setView = useUiStore((s) => s.setView);
  const counts = new Map<string, number>();
  for (const p of Object.values(proxies)) counts.set(p.host, (counts.get(p.host) ?? 0) + 1);
  return (
    <section className="view" aria-labelledby="hosts-h">
      <div className="view-head">
        <h2 id="hosts-h">Hosts</h2>
        <span className="meta">{loaded ? `${hosts.length} in the config` : 'connecting…'}</span>
      </div>
      {error && <p role="alert" className="error">Cannot list the hosts: {error}. Fix the config (see the Config view) and reload the window.</p>}
      {loaded && !error && hosts.length === 0 && (
        <div className="empty-state">
          <h3>No host yet</h3>
          <p>
            Add a host under <code>kvm.hosts</code> in the config file: <code>address: local</code> for this machine, or an SSH address for a remote one.
          </p>
          <button type="button" onClick={() => setView('config')}>Open the Config view</button>
        </div>
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
                  <td>{h.via}</td>
                  <td>{counts.get(h.name) ?? 0}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <div className="host-cards">
            {hosts.map((h) => (
              <HostCard key={h.name} host={h} proxies={counts.get(h.name) ?? 0} />
            ))}
          </div>
        </>
      )}
    </section>
  );
}
