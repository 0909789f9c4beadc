/**
 * One host's card in the Hosts view: its connection state with the reason, the prompt it is
 * waiting on (host key, passphrase), its facts once connected and its load, and for an SSH
 * host how base images reach it (ImageTransfer.tsx) and its SSH settings.
 */
import { useEffect } from 'react';
import type { HostStatus } from '../../shared/hosts.js';
import { formatBytes } from '../format.js';
import { useHostsStore } from '../stores/hosts-store.js';
import { HOST_STATE_TEXT } from './host-state.js';
import { HostKeyPrompt, HostKeyRefused } from './HostKey.js';
import { type HostProxy, HostLoad } from './HostLoad.js';
import { ImageTransferSection } from './ImageTransfer.js';
import { PassphrasePrompt } from './PassphrasePrompt.js';
import { SshSettingsSection } from './SshSettings.js';

export interface HostCardProps {
  host: HostStatus;
  /** How many proxies run on the host (the Proxies fact). */
  proxies: number;
  /** Those proxies, by name: the load meters' CPU and the list under them. */
  onHost: readonly HostProxy[];
  /** The entry this one reaches the same hypervisor as, when there is one. */
  sameAs?: string | undefined;
  /** Edit and Remove are offered only for a host the config lists. */
  onEdit?: () => void;
  onRemove?: () => void;
}

/** A host: state, prompt, facts and load; while it shows a connected host, its load is asked for (hosts:load). */
export function HostCard({ host, proxies, onHost, sameAs, onEdit, onRemove }: HostCardProps) {
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
        <span className={`badge host-state-${host.state}`}>
          {host.hostKeyMismatch ? 'refused: host key changed' : HOST_STATE_TEXT[host.state]}
        </span>
        <span className="meta">
          {host.address === 'local' ? 'this machine' : host.address} · {host.via}
        </span>
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
      {host.message && !prompted && (
        <p className={host.state === 'connected' || host.state === 'reconnecting' ? 'meta' : 'error'}>{host.message}</p>
      )}
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
          Same hypervisor as <strong>{sameAs}</strong>: its proxies are listed once, each under the entry that launched
          it.
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
                : pools
                    .map(
                      (p) =>
                        `${p.name}${p.active ? '' : ' (inactive)'}: ${formatBytes(p.availableBytes)} free of ${formatBytes(p.capacityBytes)}`,
                    )
                    .join('; ')}
            </dd>
            <dt>Networks</dt>
            <dd>
              {info.networks.length === 0
                ? 'none'
                : info.networks.map((n) => `${n.name}${n.active ? '' : ' (inactive)'}`).join(', ')}
            </dd>
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
