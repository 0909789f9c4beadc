import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SIZE,
  MIN_SIZE,
  type Rect,
  captureState,
  placeWindow,
  readWindowState,
  saveWindowState,
  windowStatePath,
} from '../../../electron/services/window/window-state.js';
import { tempDir } from '../../support/temp-dir.js';

// A laptop panel with a top bar, and a bigger monitor to its right.
const laptop: Rect = { x: 0, y: 27, width: 1920, height: 1053 };
const monitor: Rect = { x: 1920, y: 0, width: 2560, height: 1440 };

describe('window state: where the window opens', () => {
  it('opens a first start at the default size, centred by the system', () => {
    expect(placeWindow(undefined, [laptop], laptop)).toEqual({ ...DEFAULT_SIZE, maximized: false });
  });

  it('shrinks the default size to a small screen', () => {
    const small: Rect = { x: 0, y: 0, width: 1024, height: 700 };
    expect(placeWindow(undefined, [small], small)).toEqual({ width: 1024, height: 700, maximized: false });
  });

  it('restores a saved window where it was, maximised flag included', () => {
    const saved = { x: 2000, y: 100, width: 1400, height: 900, maximized: true };
    expect(placeWindow(saved, [laptop, monitor], laptop)).toEqual(saved);
  });

  it('moves a window that hangs off the edge of its display fully inside it', () => {
    const saved = { x: 1500, y: -50, width: 1000, height: 700, maximized: false };
    // 420 px of it on the laptop, 580 on the monitor: the monitor wins.
    expect(placeWindow(saved, [laptop, monitor], laptop)).toEqual({
      x: 1920,
      y: 0,
      width: 1000,
      height: 700,
      maximized: false,
    });
    const left = { x: -300, y: 500, width: 1000, height: 700, maximized: false };
    expect(placeWindow(left, [laptop, monitor], laptop)).toEqual({
      x: 0,
      y: 380,
      width: 1000,
      height: 700,
      maximized: false,
    });
  });

  it('shrinks a window bigger than its display to the work area', () => {
    const saved = { x: 2000, y: 0, width: 3000, height: 2000, maximized: false };
    expect(placeWindow(saved, [laptop, monitor], laptop)).toEqual({
      x: 1920,
      y: 0,
      width: 2560,
      height: 1440,
      maximized: false,
    });
  });

  it('grows a tiny saved window to the minimum size', () => {
    const saved = { x: 100, y: 100, width: 50, height: 40, maximized: false };
    expect(placeWindow(saved, [laptop], laptop)).toMatchObject({ width: MIN_SIZE.width, height: MIN_SIZE.height });
  });

  it('centres on the primary display a window left on a monitor that is gone', () => {
    const saved = { x: 2500, y: 200, width: 1400, height: 900, maximized: true };
    expect(placeWindow(saved, [laptop], laptop)).toEqual({ width: 1400, height: 900, maximized: true });
    // A sliver (under 100 px wide) still on screen counts as gone.
    const sliver = { x: 1880, y: 200, width: 1400, height: 900, maximized: false };
    expect(placeWindow(sliver, [laptop], laptop)).toEqual({ width: 1400, height: 900, maximized: false });
  });

  it('always opens inside a display, whatever was saved', () => {
    const rect = fc.record({
      x: fc.integer({ min: -5000, max: 5000 }),
      y: fc.integer({ min: -5000, max: 5000 }),
      width: fc.integer({ min: 1, max: 6000 }),
      height: fc.integer({ min: 1, max: 6000 }),
    });
    fc.assert(
      fc.property(rect, fc.boolean(), (r, maximized) => {
        const areas = [laptop, monitor];
        const p = placeWindow({ ...r, maximized }, areas, laptop);
        const area =
          p.x === undefined
            ? laptop
            : areas.find(
                (a) =>
                  p.x! >= a.x && p.y! >= a.y && p.x! + p.width <= a.x + a.width && p.y! + p.height <= a.y + a.height,
              );
        expect(area).toBeDefined();
        expect(p.width).toBeLessThanOrEqual(area!.width);
        expect(p.height).toBeLessThanOrEqual(area!.height);
        expect(p.maximized).toBe(maximized);
      }),
    );
  });
});

describe('window state: what is saved', () => {
  it('keeps the normal bounds and the maximised flag, rounded', () => {
    expect(captureState({ x: 10.4, y: 20.6, width: 1199.5, height: 800.2 }, true)).toEqual({
      x: 10,
      y: 21,
      width: 1200,
      height: 800,
      maximized: true,
    });
  });

  it('round-trips through the file atomically, 0600, no temporary left', async () => {
    const dir = tempDir('egress-window-');
    const file = windowStatePath(dir);
    const state = { x: -1200, y: 40, width: 1000, height: 700, maximized: false };
    await saveWindowState(file, state);
    await expect(readWindowState(file)).resolves.toEqual(state);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['window-state.json']);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(state);
  });

  it('ignores a missing, corrupt or out-of-schema file', async () => {
    const dir = tempDir('egress-window-');
    const file = windowStatePath(dir);
    await expect(readWindowState(file)).resolves.toBeUndefined();
    for (const text of [
      '{"x": 1, "y": 2, "wid',
      '[]',
      '{"x":0,"y":0,"width":0,"height":10,"maximized":false}',
      '{"x":0,"y":0,"width":10,"height":10,"maximized":"yes"}',
      '{"x":0.5,"y":0,"width":10,"height":10,"maximized":false}',
      '{"x":0,"y":0,"width":10,"height":10,"maximized":false,"extra":1}',
    ]) {
      writeFileSync(file, text);
      await expect(readWindowState(file), text).resolves.toBeUndefined();
    }
  });

  it('refuses to save a state outside the schema', async () => {
    const dir = tempDir('egress-window-');
    await expect(
      saveWindowState(windowStatePath(dir), { x: 0, y: 0, width: -5, height: 10, maximized: false }),
    ).rejects.toThrow();
  });
});
