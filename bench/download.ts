/**
 * (f) Image download + verify from a local HTTP server: our cache (hash while writing, one
 * pass, flushed to disk) against `curl -o`, `sync FILE` and `sha256sum` (two passes, the
 * same durability), the same file, the same server.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ImageCache } from '../electron/services/images/index.js';
import { run } from './peers.js';
import { uploadFixture } from './upload.js';

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Serves `file` on 127.0.0.1 from a separate process (so it does not share our event loop). */
async function serve(file: string): Promise<{ url: string; stop: () => void }> {
  const script = `
    const http = require('node:http'), fs = require('node:fs');
    const size = fs.statSync(process.argv[1]).size;
    const server = http.createServer((req, res) => {
      res.writeHead(200, { 'content-length': size, 'content-type': 'application/octet-stream' });
      fs.createReadStream(process.argv[1]).pipe(res);
    }).listen(0, '127.0.0.1', () => process.stdout.write(String(server.address().port) + '\\n'));
  `;
  const child = spawn(process.execPath, ['-e', script, file], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve) =>
    child.stdout.once('data', (d: Buffer) => resolve(d.toString().trim())),
  );
  return { url: `http://127.0.0.1:${port}/image.qcow2`, stop: () => child.kill() };
}

export interface DownloadFigures {
  oursSeconds: number;
  curlSeconds: number;
  bytes: number;
  peakRssBytes: number;
}

export async function downloadFigures(workDir: string): Promise<DownloadFigures> {
  const file = uploadFixture(workDir);
  const sha256 = await sha256Of(file);
  const bytes = statSync(file).size;
  const server = await serve(file);
  const cacheDir = join(workDir, 'cache');
  const curlOut = join(workDir, 'curl.out');
  try {
    rmSync(cacheDir, { recursive: true, force: true });
    mkdirSync(cacheDir, { recursive: true });
    let peakRss = process.memoryUsage().rss;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);
    const t = performance.now();
    await new ImageCache({ dir: cacheDir }).ensure({ url: server.url, sha256, format: 'qcow2' });
    const oursSeconds = (performance.now() - t) / 1000;
    clearInterval(sampler);
    rmSync(cacheDir, { recursive: true, force: true });

    const t2 = performance.now();
    run('curl', ['-sS', '-o', curlOut, server.url]);
    // Our cache flushes the file before renaming it into place (a power cut must not leave
    // a truncated image under a verified name): the peer gets the same durability.
    run('sync', [curlOut]);
    const digest = run('sha256sum', [curlOut]).split(' ')[0];
    const curlSeconds = (performance.now() - t2) / 1000;
    if (digest !== sha256) throw new Error('curl downloaded different bytes');
    return { oursSeconds, curlSeconds, bytes, peakRssBytes: peakRss };
  } finally {
    server.stop();
    rmSync(curlOut, { force: true });
    rmSync(cacheDir, { recursive: true, force: true });
  }
}
