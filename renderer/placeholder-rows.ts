/**
 * The Proxies table's stand-in rows while the listing is on its way: a screenful of rows with
 * a proxy's shape, drawn as grey bars (styles.css, `.grid-row.placeholder`).
 *
 * They are there for the person (the table's shape at once, not an empty box) and for the
 * first real frame: the window renders its rows into slots (ProxyWindow.tsx), so when the
 * listing arrives the placeholders' elements take the proxies' text instead of being
 * created. What a fresh page pays once — the row's code run the first time, its elements
 * created and styled, its glyphs (the action buttons' symbols) found in the fonts — is
 * paid while the page waits for the hosts, not between the answer and the rows.
 */
import type { ProxyRecordView } from '../shared/proxies.js';
import type { GroupedRow } from './proxy-fleet.js';

/**
 * A proxy's typical text, never shown as text (the row is drawn as bars) and never sent
 * anywhere. Its name is not a DNS label, so no proxy can have it.
 */
export const PLACEHOLDER_PROXY: ProxyRecordView = {
  name: 'Placeholder proxy',
  id: 'placeholder',
  host: 'host',
  state: 'running',
  port: 3128,
  machineType: 'small',
  image: { name: 'debian-12', sha256: '' },
  createdAt: '1970-01-01T00:00:00.000Z',
  owner: 'egress-desk',
  specHash: '',
  addresses: [{ address: '192.0.2.0', prefix: 24, family: 'ipv4', source: 'lease' }],
};

const ROW: GroupedRow = { kind: 'proxy', proxy: PLACEHOLDER_PROXY };

/** `count` stand-in rows (one shared row object: they are never told apart). */
export function placeholderRows(count: number): GroupedRow[] {
  return Array.from({ length: Math.max(0, Math.floor(count)) }, () => ROW);
}
