/**
 * The window's security posture, in one place: sandboxed renderer with context isolation,
 * a strict CSP, no new windows, no navigation, one permission (writing to the clipboard,
 * for the app's own origin), only our own content.
 */
import type { BrowserWindowConstructorOptions, Session, WebContents } from 'electron';
import { CONTENT_SECURITY_POLICY } from '../../shared/csp.js';
import { APP_ORIGIN } from './renderer-protocol.js';

export { CONTENT_SECURITY_POLICY } from '../../shared/csp.js';

/** `packaged`: Developer Tools cannot be opened at all (the menu offers them only unpackaged as well). */
export function secureWebPreferences(
  preload: string,
  packaged: boolean,
): NonNullable<BrowserWindowConstructorOptions['webPreferences']> {
  return {
    preload,
    devTools: !packaged,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    webviewTag: false,
    spellcheck: false,
  };
}

/**
 * The one permission the window has: `clipboard-sanitized-write`, which
 * `navigator.clipboard.writeText` asks for (every Copy button), and only for the app's own
 * origin. Everything else, and anything from another origin, is denied.
 */
export const ALLOWED_PERMISSIONS: ReadonlySet<string> = new Set(['clipboard-sanitized-write']);

/** The origin of a URL or origin string, or undefined when it has none. */
function originOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    // Standard custom schemes ("app:") have an opaque URL.origin in Node: build it from its parts.
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return undefined;
  }
}

/** Whether `permission`, asked by a page of `origin` (a URL or an origin), is granted. */
export function permissionAllowed(permission: string, origin: string | undefined): boolean {
  return ALLOWED_PERMISSIONS.has(permission) && originOf(origin) === APP_ORIGIN;
}

/**
 * Grants {@link permissionAllowed} and nothing else, and adds the CSP header to every
 * response (the app scheme's handler sets it as well: webRequest does not see every scheme).
 */
export function hardenSession(session: Session): void {
  session.setPermissionRequestHandler((_wc, permission, callback, details) =>
    callback(permissionAllowed(permission, details.requestingUrl)),
  );
  session.setPermissionCheckHandler((_wc, permission, requestingOrigin) =>
    permissionAllowed(permission, requestingOrigin),
  );
  session.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] } });
  });
}

/** No new windows and no navigation away from `appUrl`; external links open in the system browser. */
export function lockNavigation(contents: WebContents, appUrl: string, openExternal: (url: string) => void): void {
  contents.setWindowOpenHandler(({ url }) => {
    if (/^https?:\/\//.test(url)) openExternal(url);
    return { action: 'deny' };
  });
  contents.on('will-navigate', (event, url) => {
    if (url !== appUrl) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
}
