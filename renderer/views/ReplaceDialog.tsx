/**
 * Replace one proxy or a selection: each gets a fresh VM with the same name, spec, labels
 * and credentials (usually a new exit address), ready before its old one is deleted, one at
 * a time (`proxies:replace`, one task). The person picks where the new ones go: where each
 * is, or one host.
 */
import { useId, useState } from 'react';
import type { ProxyRecordView } from '../../shared/proxies.js';
import type { LaunchedBy } from '../../shared/fleet-meta.js';
import { errorMessage } from '../format.js';
import { othersIn } from '../proxy-fleet.js';
import { useHostsStore } from '../stores/hosts-store.js';
import { replaceProxies } from '../stores/proxy-actions.js';
import { useUiStore } from '../stores/ui-store.js';
import { ConfirmDialog } from './ConfirmDialog.js';
import { OthersNote } from './OthersNote.js';

export function ReplaceDialog({
  proxies,
  you,
  onClose,
}: {
  proxies: readonly ProxyRecordView[];
  you: LaunchedBy | undefined;
  onClose: () => void;
}) {
  const hosts = useHostsStore((s) => s.hosts);
  const toast = useUiStore((s) => s.toast);
  const [host, setHost] = useState('');
  const id = useId();
  const names = proxies.map((p) => p.name);
  const one = names.length === 1;
  async function confirm() {
    onClose();
    try {
      // The dialog named the owners of someone else's proxies: confirming is their agreement.
      await replaceProxies({ names, ...(host ? { host } : {}), force: true });
      toast(`Replacing ${names.join(', ')}${one ? '' : ', one at a time'} (see Tasks)`);
    } catch (err) {
      toast(`Could not replace ${names.join(', ')}: ${errorMessage(err)}`, 'error');
    }
  }
  return (
    <ConfirmDialog
      title={`Replace ${one ? names[0] : `${names.length} proxies`}?`}
      confirmLabel="Replace"
      onCancel={onClose}
      onConfirm={() => void confirm()}
    >
      <p>
        {one
          ? 'A fresh VM with the same name, spec, labels and credentials is launched'
          : 'Each gets a fresh VM with the same name, spec, labels and credentials, one at a time'}
        ; only once it answers is the old one deleted. Clients keep their URL except for the address. If the new one
        fails, the old one stays as it was.
      </p>
      <ul>
        {names.map((n) => (
          <li key={n}>
            <code>{n}</code>
          </li>
        ))}
      </ul>
      <label htmlFor={id}>Launch the new {one ? 'one' : 'ones'} on</label>{' '}
      <select id={id} value={host} onChange={(e) => setHost(e.target.value)}>
        <option value="">the same host</option>
        {hosts.map((h) => (
          <option key={h.name} value={h.name}>
            {h.name}
          </option>
        ))}
      </select>
      <OthersNote others={othersIn(proxies, you)} />
    </ConfirmDialog>
  );
}
