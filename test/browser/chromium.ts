/** Chromium for the browser lane: the launcher lives in bench/browser/ (the UI benchmarks use it too). */
export { CHROMIUM, CHROMIUM_ARGS, VIEWPORT, launchChromium } from '../../bench/browser/chromium.js';
