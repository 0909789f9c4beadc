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

/** Points already made, by the values' array: the stats store gives a row a new array only when a sample arrives, so a row scrolled back into view (or a recycled slot showing it again) does not format its 60 points again. */
const made = new WeakMap<readonly number[], string>();

/** {@link sparkPoints} at the default size, once per values array. */
export function sparkPointsOnce(values: readonly number[]): string {
  let points = made.get(values);
  if (points === undefined) {
    points = sparkPoints(values);
    made.set(values, points);
  }
  return points;
}
