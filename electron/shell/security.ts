/**
 * The window's security posture, in one place: sandboxed renderer with context isolation,
 * a strict CSP, no new windows, no navigation, no permissions, only our own content.
 */
import type { BrowserWindowConstructorOptions, Session, WebContents } from 'electron';
import { CONTENT_SECURITY_POLICY } from '../../shared/csp.js';

export { CONTENT_SECURITY_POLICY } from '../../shared/csp.js';

export function secureWebPreferences(preload: string): NonNullable<BrowserWindowConstructorOptions['webPreferences']> {
  return {
    preload,
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

/** Denies every permission request and adds the CSP header to every response. */
export function hardenSession(session: Session): void {
  session.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
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
