/**
 * The Gateway view's "Client settings" (issue 40): the client settings dialog for the
 * gateway's address, with what the client's user name asks for above the format picker (a
 * session ID, labels, a host: shared/gateway-user.ts). Each field is checked as the gateway
 * would check it, and a value it would refuse is shown under its field with the gateway's
 * reason; nothing is fetched until all are accepted. The file comes from
 * `gateway:clientSettings` through the gateway store.
 */
import { useId, useMemo, useState } from 'react';
import {
  FIRST_GATEWAY_CLIENT,
  type GatewaySelectionForm,
  checkGatewaySelection,
} from '../../shared/gateway-client-settings.js';
import { useGatewayStore } from '../stores/gateway-store.js';
import { ClientSettingsDialog, type FetchSettingsFile } from './ClientSettingsDialog.js';
import { Field } from './Field.js';

const FIELDS = [
  ['session', 'Session ID', 'Sticky: the same proxy for the same ID while it is healthy. Letters, digits, "_" and "."'],
  ['labels', 'Labels', 'key=value pairs, separated by spaces or commas: only proxies with all of them.'],
  ['host', 'Host', 'Only proxies on this host (its name in the config).'],
] as const;

export function GatewayClientSettingsDialog({
  clients,
  socks,
  onClose,
}: {
  /** The gateway's clients (names); the first is used unless the person picks another. */
  clients: readonly string[];
  /** Whether the gateway has a SOCKS5 listener to offer. */
  socks: boolean;
  onClose: () => void;
}) {
  const id = useId();
  const ask = useGatewayStore((s) => s.clientSettings);
  const [form, setForm] = useState<GatewaySelectionForm>({ session: '', labels: '', host: '' });
  const [picked, setPicked] = useState<string>();
  const [useSocks, setUseSocks] = useState(false);
  // The first client is made on demand when none exists: it will be this one.
  const client = picked ?? clients[0] ?? FIRST_GATEWAY_CLIENT;

  const { checked, fetchFile } = useMemo(() => {
    const checked = checkGatewaySelection(client, form);
    const fetchFile: FetchSettingsFile | undefined = checked.ok
      ? (format, withCredentials) =>
          ask({
            ...checked.selection,
            ...(picked ? { client: picked } : {}),
            format,
            ...(useSocks ? { socks: true } : {}),
            ...(withCredentials ? { withCredentials } : {}),
          })
      : undefined;
    return { checked, fetchFile };
  }, [client, picked, form, useSocks, ask]);

  return (
    <ClientSettingsDialog
      title="Client settings for the gateway"
      fetchFile={fetchFile}
      credentialsLabel="Include the user name and password when copying or downloading"
      credentialsNote=" (they include the password)"
      onClose={onClose}
    >
      {clients.length > 1 && (
        <Field id={`${id}-client`} label="Client">
          {(c) => (
            <select {...c} value={client} onChange={(e) => setPicked(e.target.value)}>
              {clients.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          )}
        </Field>
      )}
      {FIELDS.map(([field, label, hint]) => (
        <Field
          key={field}
          id={`${id}-${field}`}
          label={label}
          hint={hint}
          error={checked.ok ? undefined : checked.problems[field]}
        >
          {(c) => (
            <input
              {...c}
              spellCheck={false}
              value={form[field]}
              onChange={(e) => setForm({ ...form, [field]: e.target.value })}
            />
          )}
        </Field>
      ))}
      {socks && (
        <Field id={`${id}-socks`} label="SOCKS5 listener instead of HTTP" checkbox>
          {(c) => <input {...c} type="checkbox" checked={useSocks} onChange={(e) => setUseSocks(e.target.checked)} />}
        </Field>
      )}
      <p className="meta">
        User name: <code>{checked.ok ? checked.user : '—'}</code>
      </p>
    </ClientSettingsDialog>
  );
}
