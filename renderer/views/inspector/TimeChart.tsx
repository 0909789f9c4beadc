/**
 * A time chart drawn by uPlot on a canvas. uPlot styles only through the CSSOM
 * (`element.style.x = …`) and its stylesheet is a file of ours, so the app's strict CSP
 * (`style-src 'self'`, shared/csp.ts) allows it as it is, with no workaround like xterm's
 * (test/browser/traffic.test.ts proves it in Chromium). Its own legend (a table of
 * values) is off: the panel says the figures in words beside the chart, and the chart is
 * one image with a name for assistive technology.
 */
import 'uplot/dist/uPlot.min.css';
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';

export interface ChartSeries {
  label: string;
  /** A CSS custom property of styles.css for the line's colour, e.g. `--accent`. */
  colorVar: string;
}

export interface TimeChartProps {
  /** What the chart shows, for assistive technology (the figures are also said beside it). */
  label: string;
  series: readonly ChartSeries[];
  /** uPlot's aligned data: times in seconds, then one column per series. */
  data: uPlot.AlignedData;
  /** The values' unit on the axis. */
  format: (value: number) => string;
  /** The least top of the value axis (so that a quiet proxy's zeros do not fill the chart with one repeated tick). */
  floor: number;
  height?: number;
}

/** The hour the chart spans, in seconds: the hour before its newest point (before now, with none). */
export const HOUR_S = 3600;

/** Up to this many samples (five minutes at 5 s), each is drawn as a dot as well as the line. */
const SPARSE_POINTS = 60;

/** The theme's value of a custom property, read from the chart's own element (light or dark). */
const cssVar = (el: Element, name: string, fallback: string) =>
  getComputedStyle(el).getPropertyValue(name).trim() || fallback;

export function TimeChart({ label, series, data, format, floor, height = 140 }: TimeChartProps) {
  const host = useRef<HTMLDivElement>(null);
  const chart = useRef<uPlot | null>(null);

  // Made once per series shape; the data goes in through setData (no re-creation per sample).
  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const text = cssVar(el, '--muted', '#5c6370');
    const grid = cssVar(el, '--border', '#d9dce1');
    const axis: uPlot.Axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
    const plot = new uPlot(
      {
        width: Math.max(el.clientWidth, 200),
        height,
        legend: { show: false },
        cursor: { drag: { x: false, y: false } },
        scales: {
          // Always the whole hour, so that ten minutes of figures look like ten minutes.
          x: {
            time: true,
            range: (_u, _min, max) => {
              const end = Number.isFinite(max) && max > 0 ? max : Date.now() / 1000;
              return [end - HOUR_S, end];
            },
          },
          y: { range: (_u, _min, max) => [0, Math.max(Number.isFinite(max) ? max * 1.1 : 0, floor)] },
        },
        axes: [axis, { ...axis, size: 70, values: (_u, ticks) => ticks.map(format) }],
        series: [
          {},
          ...series.map((s) => {
            const stroke = cssVar(el, s.colorVar, '#1f5fd6');
            // On an hour's axis the first minutes of a new proxy are a line a pixel or two
            // long: until there are SPARSE_POINTS samples each one is also a dot, so that a
            // young proxy's figures can be seen at all (uPlot's own rule hides points closer
            // than their size, which is exactly this case).
            return {
              label: s.label,
              stroke,
              width: 1.5,
              spanGaps: false,
              points: { show: (u: uPlot) => u.data[0].length <= SPARSE_POINTS, size: 5, fill: stroke, stroke },
            };
          }),
        ],
      },
      [[], ...series.map(() => [])],
      el,
    );
    chart.current = plot;
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(el.clientWidth, 200), height }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
      chart.current = null;
    };
    // The series, height and format are fixed per chart; a change of them is a new chart (its key).
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  // Runs after the creation above (effects run in order), so the first data goes in here too.
  useEffect(() => {
    chart.current?.setData(data);
  }, [data]);

  return <div className="time-chart" ref={host} role="img" aria-label={label} />;
}
