/**
 * "SSH settings" under an SSH host: where it connects, as whom, the keys in the order they
 * are tried with where each came from, the jump chain, the known_hosts files and every
 * warning — the same view as `egress-desk hosts ssh-config` (hosts:sshSettings), read when
 * the section is opened and again with "Read again" (ssh_config may have been edited).
 */
import { useState } from 'react';
import type { SshSettingsView } from '../../shared/ssh-settings.js';
import { sshSettings } from '../stores/host-actions.js';
import { errorMessage } from '../format.js';

function Setting({ label, value, origin }: { label: string; value: string; origin: string }) {
  return (
    <>
      <dt>{label}</dt>
      <dd>
        <code>{value}</code> <span className="meta">({origin})</span>
      </dd>
    </>
  );
}

function SettingsBody({ view }: { view: SshSettingsView }) {
  return (
    <>
      <p>
        Connects to <code>ssh://{view.endpoint}</code>
        {view.address !== view.hostName.value && (
          <>
            {' '}
            (address <code>{view.address}</code>)
          </>
        )}
        {view.jumps.length > 0 ? ` through ${view.jumps.join(' → ')}` : ', directly'}.
      </p>
      <dl className="facts">
        <Setting label="Host name" value={view.hostName.value} origin={view.hostName.origin} />
        <Setting label="Port" value={view.port.value} origin={view.port.origin} />
        <Setting label="User" value={view.user.value} origin={view.user.origin} />
        <dt>Keys</dt>
        <dd>
          {view.keys.length === 0 ? (
            'none'
          ) : (
            <ol aria-label={`Keys of ${view.name}, in the order they are tried`}>
              {view.keys.map((k) => (
                <li key={k.path}>
                  <code>{k.path}</code>{' '}
                  <span className="meta">
                    ({k.origin}
                    {k.written !== undefined ? `, written "${k.written}"` : ''})
                  </span>
                </li>
              ))}
            </ol>
          )}
        </dd>
        <dt>Agent</dt>
        <dd>
          {view.agent ?? 'none'}
          {view.identitiesOnly && <span className="meta"> (IdentitiesOnly: only the keys above)</span>}
        </dd>
        <dt>Via</dt>
        <dd>
          {view.jumps.length === 0 ? 'direct' : view.jumps.join(' → ')}
          {view.proxyJump && (
            <span className="meta">
              {' '}
              (ProxyJump {view.proxyJump.value}
              {view.proxyJump.origin ? `, ${view.proxyJump.origin}` : ''})
            </span>
          )}
        </dd>
        {view.proxyCommand !== undefined && (
          <>
            <dt>ProxyCommand</dt>
            <dd>
              <code>{view.proxyCommand}</code> <span className="meta">(not run by Egress Desk)</span>
            </dd>
          </>
        )}
        <dt>known_hosts</dt>
        <dd>
          {view.knownHostsFiles.join(' ') || 'none'}
          {view.knownHostsFiles.length > 0 && <span className="meta"> (new keys go to the first)</span>}
        </dd>
        <dt>Global known_hosts</dt>
        <dd>{view.globalKnownHostsFiles.join(' ') || 'none'}</dd>
        <dt>Host key name</dt>
        <dd>
          {view.hostKeyName}
          {view.hashKnownHosts && <span className="meta"> (HashKnownHosts)</span>}
        </dd>
        {view.connectTimeoutSeconds !== undefined && (
          <>
            <dt>ConnectTimeout</dt>
            <dd>{view.connectTimeoutSeconds} s</dd>
          </>
        )}
        {view.serverAlive && (
          <>
            <dt>ServerAlive</dt>
            <dd>
              every {view.serverAlive.intervalSeconds} s, {view.serverAlive.countMax} unanswered allowed
            </dd>
          </>
        )}
      </dl>
      {view.warnings.length > 0 && (
        <ul className="warnings" aria-label={`SSH settings warnings for ${view.name}`}>
          {view.warnings.map((w) => (
            <li key={w}>{w}</li>
          ))}
        </ul>
      )}
    </>
  );
}

/** The expandable section; reads the settings when first opened. */
export function SshSettingsSection({ host }: { host: string }) {
  const [view, setView] = useState<SshSettingsView>();
  const [error, setError] = useState<string>();
  const [loading, setLoading] = useState(false);
  const load = async () => {
    setLoading(true);
    try {
      setView(await sshSettings(host));
      setError(undefined);
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setLoading(false);
    }
  };
  return (
    <details
      className="ssh-settings"
      onToggle={(e) => {
        if (e.currentTarget.open && !view && !loading) void load();
      }}
    >
      <summary>SSH settings</summary>
      <section aria-label={`SSH settings of ${host}`}>
        {loading && !view && <p className="meta">Reading ssh_config…</p>}
        {error && (
          <p role="alert" className="error">
            Cannot read the SSH settings: {error}
          </p>
        )}
        {view && <SettingsBody view={view} />}
        <button
          type="button"
          onClick={() => void load()}
          disabled={loading}
          aria-label={`Read again the SSH settings of ${host}`}
        >
          Read again
        </button>
      </section>
    </details>
  );
}
