/**
 * zod without its eval probe, for the renderer's strict CSP (no 'unsafe-eval'). zod 4
 * compiles a fast path for object schemas with `new Function`, and to know whether it may,
 * it tries `new Function("")` when the first object schema is built; the CSP refuses that
 * and the browser reports a `securitypolicyviolation` (script-src eval) on every page load,
 * even though zod catches the error. `jitless` skips the probe and the compiled path.
 *
 * It must run before any schema is built: import it first, before anything that reaches
 * shared/ (ES modules run in import order).
 */
import { z } from 'zod';

z.config({ jitless: true });
