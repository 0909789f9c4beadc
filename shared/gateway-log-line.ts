/**
 * One gateway access-log entry as a line of text: what `egress-desk gateway log` prints and
 * the Gateway view's Requests table shows, in the same words.
 */
import { formatBytes } from './bytes.js';
import type { GatewayAccessEntry } from './gateway.js';

/** `21:04:05  ci  CONNECT example.com:443 → web-1 (edge-a)  ok  1.2 KiB out, 34 KiB in  120 ms`, and for a refusal its status and reason. */
export function formatAccessEntry(e: GatewayAccessEntry): string {
  const when = e.at.replace(/^\d{4}-\d{2}-\d{2}T/, '').replace(/\.\d+Z$|Z$/, '');
  const who = e.client ?? '-';
  const via = e.member ? ` → ${e.member} (${e.host ?? '?'})${e.tries > 1 ? ` after ${e.tries - 1} failed` : ''}` : '';
  const what =
    e.outcome === 'ok'
      ? `ok${e.status !== undefined ? ` ${e.status}` : ''}  ${formatBytes(e.bytesOut)} out, ${formatBytes(e.bytesIn)} in${e.reason ? ` (${e.reason})` : ''}`
      : `${e.outcome}${e.status !== undefined ? ` ${e.status}` : ''}${e.reason ? `: ${e.reason}` : ''}`;
  return `${when}  ${who}  ${e.method} ${e.target || '-'}${via}  ${what}  ${Math.round(e.ms)} ms`;
}
