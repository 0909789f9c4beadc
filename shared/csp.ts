/**
 * The Content-Security-Policy of every page the app shows, in the Electron window and in
 * serve mode alike: nothing remote, no eval, no inline script. `connect-src 'self'` covers
 * serve mode's own WebSocket (same host and port); `frame-ancestors 'none'` keeps other
 * pages from framing the app. renderer/index.html repeats it as a meta tag (without
 * frame-ancestors, which meta tags cannot set); a unit test keeps the two in step.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
