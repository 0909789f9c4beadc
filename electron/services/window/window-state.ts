/**
 * The app window's size, position and maximised state, remembered across starts in
 * `window-state.json` in the data directory. Electron-free on purpose: the rules (what
 * is saved, where a window may be restored) are plain functions over rectangles, tested
 * without a display; electron/shell/app.ts only feeds them Electron's screen and window.
 */
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../config/atomic-write.js';
import { readJsonFile } from '../config/json-file.js';

export const WINDOW_STATE_FILE = 'window-state.json';

/** A rectangle in screen coordinates (Electron's `Rectangle`). */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The size a first start opens at (and the most a restored window falls back to). */
export const DEFAULT_SIZE = { width: 1200, height: 800 } as const;
/** The smallest window the layout works in; a smaller saved size is grown to this. */
export const MIN_SIZE = { width: 720, height: 480 } as const;
/** How much of a saved window (px, in both directions) must overlap a display for that display to be chosen. */
const MIN_VISIBLE = 100;

const Coordinate = z.number().int().min(-100_000).max(100_000);
const Length = z.number().int().positive().max(100_000);

/** What is saved: the normal (not maximised) bounds, and whether it was maximised. */
export const WindowStateSchema = z.strictObject({
  x: Coordinate,
  y: Coordinate,
  width: Length,
  height: Length,
  maximized: z.boolean(),
});
export type WindowState = z.infer<typeof WindowStateSchema>;

/** Where and how to open the window: `x`/`y` absent means "let the system centre it". */
export interface WindowPlacement {
  x?: number;
  y?: number;
  width: number;
  height: number;
  maximized: boolean;
}

/** The area two rectangles share, or 0 when the shared part is under MIN_VISIBLE px in either direction. */
function visibleOverlap(a: Rect, b: Rect): number {
  const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return w >= MIN_VISIBLE && h >= MIN_VISIBLE ? w * h : 0;
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(Math.max(value, low), high);
}

/**
 * Where to open the window, given what was saved and the displays' work areas (the
 * screen minus panels and docks) now. The saved window goes back to the display it
 * overlaps most, shrunk to fit that display's work area and moved fully inside it; if it
 * overlaps no display by at least 100 px each way (a monitor was unplugged, the layout
 * changed), it opens centred on the primary display instead. Nothing saved: the default
 * size, centred, shrunk to the primary work area if that is smaller.
 */
export function placeWindow(
  saved: WindowState | undefined,
  workAreas: readonly Rect[],
  primary: Rect,
): WindowPlacement {
  const fit = (size: { width: number; height: number }, area: Rect) => ({
    // The minimum wins over the saved size, and the work area wins over the minimum: a window never opens off-screen.
    width: Math.min(Math.max(size.width, MIN_SIZE.width), area.width),
    height: Math.min(Math.max(size.height, MIN_SIZE.height), area.height),
  });
  if (!saved) return { ...fit(DEFAULT_SIZE, primary), maximized: false };
  let best: Rect | undefined;
  let bestOverlap = 0;
  for (const area of workAreas) {
    const o = visibleOverlap(saved, area);
    if (o > bestOverlap) [best, bestOverlap] = [area, o];
  }
  const area = best ?? primary;
  const size = fit(saved, area);
  if (!best) return { ...size, maximized: saved.maximized };
  return {
    x: clamp(saved.x, area.x, area.x + area.width - size.width),
    y: clamp(saved.y, area.y, area.y + area.height - size.height),
    ...size,
    maximized: saved.maximized,
  };
}

/**
 * What to save when the window closes or moves: its normal bounds (Electron's
 * `getNormalBounds()`, the size it un-maximises to) and whether it is maximised or full
 * screen. Non-integer bounds (fractional scaling) are rounded.
 */
export function captureState(normalBounds: Rect, maximized: boolean): WindowState {
  return {
    x: Math.round(normalBounds.x),
    y: Math.round(normalBounds.y),
    width: Math.max(1, Math.round(normalBounds.width)),
    height: Math.max(1, Math.round(normalBounds.height)),
    maximized,
  };
}

/** The state file of a data directory. */
export function windowStatePath(dataDir: string): string {
  return join(dataDir, WINDOW_STATE_FILE);
}

/** The saved state, or undefined when there is none or it cannot be used (then the next save replaces it). */
export function readWindowState(file: string): Promise<WindowState | undefined> {
  return readJsonFile(file, WindowStateSchema);
}

/** Saves the state atomically (a crash mid-write leaves the previous file). */
export async function saveWindowState(file: string, state: WindowState): Promise<void> {
  await writeFileAtomic(file, `${JSON.stringify(WindowStateSchema.parse(state))}\n`, { mode: 0o600 });
}
