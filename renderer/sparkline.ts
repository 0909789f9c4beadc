/** A sparkline's polyline (views/ProxyTraffic.tsx draws it). */

export const SPARK_WIDTH = 64;
export const SPARK_HEIGHT = 18;

/** `values` (oldest first) as polyline points scaled to their own maximum; flat at the bottom when all zero; none below two values. */
export function sparkPoints(values: readonly number[], width = SPARK_WIDTH, height = SPARK_HEIGHT): string {
  if (values.length < 2) return '';
  const max = Math.max(...values);
  const step = width / (values.length - 1);
  return values.map((v, i) => `${(i * step).toFixed(1)},${(height - 1 - (max > 0 ? (v / max) * (height - 2) : 0)).toFixed(1)}`).join(' ');
}
