/**
 * What the window shows when the renderer cannot be loaded (`did-fail-load` of its main
 * frame): a page that says what happened and where the log is, instead of a window that
 * stays hidden (it is shown on `ready-to-show`, which a failed load may never send) while the
 * app holds the single-instance lock. Plain code, tested without Electron.
 */

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The facts of a failed load, as `did-fail-load` gives them. */
export interface LoadFailure {
  code: number;
  description: string;
  url: string;
}

/** A self-contained page (no script, inline style only) saying what failed and where the log is. */
export function loadFailureHtml(failure: LoadFailure, logDir: string): string {
  return [
    '<!doctype html><html lang="en"><head><meta charset="utf-8">',
    '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; style-src \'unsafe-inline\'">',
    '<title>Egress Desk could not start</title>',
    '<style>body{font:15px system-ui,sans-serif;margin:3em;max-width:44em}code{word-break:break-all}</style>',
    '</head><body><h1>Egress Desk could not load its window</h1>',
    `<p>Loading <code>${escapeHtml(failure.url)}</code> failed: ${escapeHtml(failure.description || 'unknown error')} (${failure.code}).</p>`,
    '<p>The installation may be damaged: reinstall Egress Desk. The details are in the log, in ',
    `<code>${escapeHtml(logDir)}</code> (Help → Open Logs).</p>`,
    '</body></html>',
  ].join('');
}

/** {@link loadFailureHtml} as a `data:` URL for `loadURL`. */
export function loadFailureUrl(failure: LoadFailure, logDir: string): string {
  return `data:text/html;charset=utf-8,${encodeURIComponent(loadFailureHtml(failure, logDir))}`;
}
