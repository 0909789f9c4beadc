// `egress-desk serve` as the real binary: needs `npm run build` (the renderer included).

import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliProcess } from '../../support/cli.js';
import { startServe } from '../../browser/serve-process.js';
import { tempDir } from '../../support/temp-dir.js';

const home = () => join(tempDir('egress-serve-cli-'), 'home');

describe('egress-desk serve (the built CLI)', () => {
  it('prints the link on stdout and "press Ctrl-C to stop" on stderr, serves, and exits 0 on SIGTERM', async () => {
    const serve = await startServe({ EGRESS_DESK_HOME: home() });
    try {
      expect(serve.stdout()).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43}\n$/);
      const refused = await fetch(`${serve.origin}/`);
      expect(refused.status).toBe(401);
      expect(await refused.text()).toMatch(/one-time link/);
      const login = await fetch(serve.url, { redirect: 'manual' });
      expect(login.status).toBe(303);
      expect(login.headers.get('location')).toBe('/');
      const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
      const page = await fetch(`${serve.origin}/`, { headers: { Cookie: cookie } });
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<div id="root">');
      expect(serve.stderr()).toContain('press Ctrl-C to stop');
    } finally {
      expect(await serve.stop('SIGTERM')).toBe(0);
    }
  });

  it('exits 0 on SIGINT (Ctrl-C)', async () => {
    const serve = await startServe({ EGRESS_DESK_HOME: home() });
    expect(await serve.stop('SIGINT')).toBe(0);
  });

  it('listens on the given --port', async () => {
    const port = await freePort();
    const serve = await startServe({ EGRESS_DESK_HOME: home() }, ['--port', String(port)]);
    expect(serve.origin).toBe(`http://127.0.0.1:${port}`);
    expect(await serve.stop()).toBe(0);
  });

  it('says when the port is taken (exit 1) and refuses a bad --port (exit 2)', async () => {
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    const port = (busy.address() as { port: number }).port;
    try {
      const taken = await runCliProcess(['serve', '--no-open', '--port', String(port)], { EGRESS_DESK_HOME: home() });
      expect(taken.code).toBe(1);
      expect(taken.stderr).toMatch(new RegExp(`port ${port} on 127.0.0.1 is in use`));
      expect(taken.stdout).toBe('');
    } finally {
      busy.close();
    }
    const bad = await runCliProcess(['serve', '--port', 'http'], { EGRESS_DESK_HOME: home() });
    expect(bad).toMatchObject({ code: 2, stdout: '' });
    expect(bad.stderr).toMatch(/--port must be a port number/);
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}
