/** The headers every serve-mode response carries: the app window's strict posture, over HTTP. */
import { CONTENT_SECURITY_POLICY } from '../../shared/csp.js';

/** Serve mode's CSP is the app window's (shared/csp.ts). */
export const SERVE_CSP = CONTENT_SECURITY_POLICY;

/** Headers set on every response, the 401s and 404s included. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': SERVE_CSP,
  'X-Content-Type-Options': 'nosniff',
  // The first URL carries the token: never hand it to anything as a referrer.
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  // The pages hold the user's config: keep them out of shared and disk caches.
  'Cache-Control': 'no-store',
};
