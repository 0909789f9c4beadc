/**
 * The timing that benchmarks (g) and (h) take inside the page. The scripts are text
 * because they run in Chromium, not in Node (this project's bench types have no DOM);
 * they only observe — the renderer is the product build, unchanged.
 *
 * "Painted" means: the first animation frame whose rAF callback sees the element, and
 * the moment that frame's rendering (style, layout, paint on the main thread) is done,
 * taken by a MessageChannel message posted from that rAF callback (it runs right after
 * the frame's rendering update). Times are `performance.now()` in the page; the listing's
 * arrival and its rows' painting are also marked in the page's User Timing (`bench:answer`,
 * `bench:rows-painted`), so that a trace of the page shows the span measured.
 */

/** What the init script records (null until seen). */
export interface PageTimes {
  /** The proxies:list answer (told by its call's id) reached the page's WebSocket (before the app's own listener ran). */
  answerAt: number | null;
  /** The first frame with rows in the proxies table: its rAF time, and when it was painted. */
  rowsAt: number | null;
  rowsPaintedAt: number | null;
  /** The toolbar's Launch button was clicked, and the dialog's first frame was painted. */
  dialogClickAt: number | null;
  dialogPaintedAt: number | null;
  /** The Launch dialog's submit was clicked; the progress view, then its first running or done step, painted. */
  submitAt: number | null;
  progressPaintedAt: number | null;
  stepPaintedAt: number | null;
}

/**
 * Installed with `page.addInitScript` (after `routeWebSocket`, so that it wraps the
 * WebSocket the page really uses); exposes `window.__bench` (PageTimes).
 */
export const TIMING_INIT_SCRIPT = `(() => {
  const b = (window.__bench = { answerAt: null, rowsAt: null, rowsPaintedAt: null, dialogClickAt: null, dialogPaintedAt: null, submitAt: null, progressPaintedAt: null, stepPaintedAt: null });
  const whenPainted = (test, done) => {
    const frame = () => {
      if (!test()) return requestAnimationFrame(frame);
      const at = performance.now();
      const channel = new MessageChannel();
      channel.port1.onmessage = () => done(at, performance.now());
      channel.port2.postMessage(0);
    };
    requestAnimationFrame(frame);
  };
  const Native = window.WebSocket;
  // The listing's answer is told by the id of its call: the traffic and health answers hold
  // "proxies" too, and may arrive first (serve answers each call as soon as it has the value).
  const listIds = new Set();
  window.WebSocket = class extends Native {
    send(data) {
      if (typeof data === 'string' && data.includes('"channel":"proxies:list"')) listIds.add(JSON.parse(data).id);
      return super.send(data);
    }
    constructor(...args) {
      super(...args);
      // Added before the app's listener, so it runs first: the clock starts on arrival.
      this.addEventListener('message', (e) => {
        if (b.answerAt !== null || typeof e.data !== 'string') return;
        const id = /^\\{"id":(\\d+),/.exec(e.data.slice(0, 32));
        if (!id || !listIds.has(Number(id[1]))) return;
        b.answerAt = performance.now();
        performance.mark('bench:answer');
        whenPainted(() => document.querySelector('.grid-body [role=row]'), (at, painted) => {
          b.rowsAt = at;
          b.rowsPaintedAt = painted;
          performance.mark('bench:rows-painted');
        });
      });
    }
  };
  const STEPS = 'ol[aria-label="Launch steps"]';
  document.addEventListener('click', (e) => {
    const button = e.target instanceof Element ? e.target.closest('button') : null;
    if (!button) return;
    const now = performance.now();
    if (button.type === 'submit' && button.closest('dialog')) {
      Object.assign(b, { submitAt: now, progressPaintedAt: null, stepPaintedAt: null });
      whenPainted(() => document.querySelector(STEPS), (_, painted) => { b.progressPaintedAt = painted; });
      whenPainted(() => document.querySelector(STEPS + ' li.step-running, ' + STEPS + ' li.step-done'), (_, painted) => { b.stepPaintedAt = painted; });
    } else if (button.closest('[role=toolbar]') && button.textContent === 'Launch') {
      Object.assign(b, { dialogClickAt: now, dialogPaintedAt: null });
      whenPainted(() => document.querySelector('dialog[open]'), (_, painted) => { b.dialogPaintedAt = painted; });
    }
  }, true);
})();`;

/** What one scroll through the table measured. */
export interface ScrollFigures {
  /** Every interval between consecutive animation frames, ms. */
  frames: number[];
  /** Durations of the long animation frames (over 50 ms) Chromium reported, ms. */
  longFrames: number[];
  /** From the first scroll to the frame showing the last row, ms. */
  totalMs: number;
  /** Whether the last row was in the DOM at the end. */
  reachedEnd: boolean;
}

/**
 * How both scrolling scripts begin: the table's scroller `el`, one viewport height as the
 * `step`, `frames` for the frame intervals, and Chromium's long animation frames gathered
 * into `longFrames` from here until {@link SCROLL_END}.
 */
const SCROLL_START = `const el = document.querySelector('.grid-body');
  const step = el.clientHeight;
  const longFrames = [];
  const observer = new PerformanceObserver((list) => { for (const e of list.getEntries()) longFrames.push(e.duration); });
  observer.observe({ type: 'long-animation-frame' });
  const frames = [];`;

/** How both end their measuring: the long frames not yet delivered taken too, and the observer stopped. */
const SCROLL_END = `for (const e of observer.takeRecords()) longFrames.push(e.duration);
  observer.disconnect();`;

/**
 * Scrolls `.grid-body` from the top to the bottom by one viewport height per frame (every
 * frame shows a new set of rows: the windowed table's worst case), until the row naming
 * `lastName` is rendered, plus one frame for it to paint. Called with `{ lastName }`.
 */
export const SCROLL_SCRIPT = `async ({ lastName }) => {
  ${SCROLL_START}
  const hasLast = () => [...el.querySelectorAll('[role=row]')].some((r) => r.textContent.includes(lastName));
  el.scrollTop = 0;
  let start;
  await new Promise((resolve) => {
    let last;
    let settled = 0;
    const tick = (now) => {
      if (last !== undefined) frames.push(now - last);
      else start = now;
      last = now;
      const atEnd = el.scrollTop + el.clientHeight >= el.scrollHeight - 1;
      if (atEnd && hasLast() && ++settled > 1) return resolve();
      if (!atEnd) el.scrollTop += step;
      if (frames.length > 10000) return resolve();
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  const totalMs = performance.now() - start;
  ${SCROLL_END}
  return { frames, longFrames, totalMs, reachedEnd: hasLast() };
}`;

/** The same number of frames on the same page with nothing happening: this machine's frame noise. Called with `{ count }`. */
export const IDLE_FRAMES_SCRIPT = `async ({ count }) => {
  const frames = [];
  await new Promise((resolve) => {
    let last;
    const tick = (now) => {
      if (last !== undefined) frames.push(now - last);
      last = now;
      if (frames.length >= count) return resolve();
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  return frames;
}`;

/**
 * Scrolls the table for `durationMs`, one viewport per frame, down to the end and back up
 * again, recording every frame interval and Chromium's long animation frames (bench (m):
 * the figures pushed meanwhile land in some of these frames). Called with `{ durationMs }`.
 */
export const SCROLL_FOR_SCRIPT = `async ({ durationMs }) => {
  ${SCROLL_START}
  let down = true;
  el.scrollTop = 0;
  const start = performance.now();
  await new Promise((resolve) => {
    let last;
    const tick = (now) => {
      if (last !== undefined) frames.push(now - last);
      last = now;
      if (now - start >= durationMs) return resolve();
      if (down && el.scrollTop + el.clientHeight >= el.scrollHeight - 1) down = false;
      else if (!down && el.scrollTop <= 0) down = true;
      el.scrollTop += down ? step : -step;
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  ${SCROLL_END}
  return { frames, longFrames };
}`;
