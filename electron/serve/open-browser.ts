/**
 * Opens a URL in the person's browser, where there is one. On a machine without a desktop
 * (a jump host over SSH) nothing is started: a text browser there would spend the one-time
 * token that the person means to open elsewhere.
 */
import { spawn } from 'node:child_process';

/** The opener for a platform, or undefined when there is no desktop to open it on. */
export function browserOpener(
  url: string,
  env: Readonly<Record<string, string | undefined>>,
  platform: NodeJS.Platform = process.platform,
): { command: string; args: string[] } | undefined {
  if (platform === 'darwin') return { command: 'open', args: [url] };
  // The empty title argument keeps `start` from taking the URL as the window title.
  if (platform === 'win32') return { command: 'cmd', args: ['/c', 'start', '""', url] };
  if (!env.DISPLAY && !env.WAYLAND_DISPLAY) return undefined;
  return { command: 'xdg-open', args: [url] };
}

/** Starts the opener detached; resolves to whether it could be started (it never throws). */
export function openBrowser(url: string, env: Readonly<Record<string, string | undefined>>): Promise<boolean> {
  const opener = browserOpener(url, env);
  if (!opener) return Promise.resolve(false);
  return new Promise((resolve) => {
    const child = spawn(opener.command, opener.args, { detached: true, stdio: 'ignore', env: { ...env } });
    child.once('error', () => resolve(false));
    child.once('spawn', () => {
      child.unref();
      resolve(true);
    });
  });
}
