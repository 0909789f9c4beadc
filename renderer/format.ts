/** Small display helpers shared by the views. */

export { formatBytes } from '../shared/bytes.js';
export { messageOf as errorMessage } from '../shared/errors.js';

/** "3 min", "2 h", "5 d": how long ago `iso` was, from `now`. */
export function formatAge(iso: string, now: number): string {
  const ms = now - Date.parse(iso);
  if (!Number.isFinite(ms)) return '—';
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.round(m / 60);
  if (h < 48) return `${h} h`;
  return `${Math.round(h / 24)} d`;
}
