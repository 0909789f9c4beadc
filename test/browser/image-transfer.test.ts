/**
 * The Hosts view's image transfer, in Debian's Chromium through the real `egress-desk
 * serve`, on an SSH host (`loop`: the test sshd on 127.0.0.1 and the test libvirtd). The
 * choice made in the view lands in the data directory's settings.json and is what
 * `egress-desk hosts image-transfer` prints; one made with the CLI is what the view shows.
 * Then two launches from the Launch dialog, each cancelled once its image is on the host
 * (the tiny image boots nothing): one whose URL refuses the host's curl (auto falls back to
 * the upload; the step, the Hosts view and the CLI say why), and one the host downloads
 * itself from a server on 127.0.0.1 that sends it slowly, so that the task shows the
 * host's own progress (the staged file's size, polled on the host) before "fetched".
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LibvirtClient } from '../../electron/libvirt/index.js';
import { baseVolumeName } from '../../electron/services/provider/kvm/names.js';
import { settingsPath } from '../../electron/services/settings/settings-file.js';
import { cliRunner } from '../support/cli.js';
import { testEnv } from '../support/env.js';
import { removeProxy, systemClient } from '../support/libvirt.js';
import { tinyImage } from '../support/provider.js';
import { type AppPage, DOCS_SHOTS, SHOTS, openApp, testConfig } from './app-page.js';
import { publishScreenshot } from './screenshots.js';

const env = testEnv();
const FELL_BACK = 'egtest-xfer-upload';
const FETCHED = 'egtest-xfer-fetch';
/** Bytes a second the server sends the slow image at: its download on the host takes a few of the 1 s progress polls. */
const SLOW_RATE = 4 * 1024 * 1024;

let app: AppPage;
let page: Page;
let client: LibvirtClient;
let server: Server;
const served = new Map<string, { body: Buffer; slow: boolean }>();
const agents: Array<{ path: string; agent: string }> = [];
const images: Record<'refused' | 'slow', { sha256: string; url: string; size: number }> = {} as never;

const hostsRegion = () => page.getByRole('region', { name: 'Hosts' });
const loopCard = () => hostsRegion().getByRole('article', { name: 'loop' });
const transfer = () => loopCard().getByRole('region', { name: 'Image transfer' });
const choice = () => transfer().getByRole('combobox', { name: 'How base images reach loop' });
const settingsOnDisk = (): {
  hosts: Record<string, { imageTransfer: string; lastTransfer?: { mode: string; reason?: string; volume: string } }>;
} => JSON.parse(readFileSync(settingsPath(app.home), 'utf8')) as never;
const cli = cliRunner(() => ({ home: app.home, config: join(app.home, 'config.yaml') }));

/** A tiny qcow2 of its own digest at /NAME.qcow2, with `writtenMiB` of its clusters written (the file the host downloads is that large). */
function image(
  home: string,
  name: string,
  sizeKiB: number,
  slow: boolean,
  port: number,
  writtenMiB = 0,
): { sha256: string; url: string; size: number } {
  const dir = join(home, name);
  mkdirSync(dir);
  const made = tinyImage(dir, sizeKiB);
  if (writtenMiB > 0)
    execFileSync('qemu-io', ['-f', 'qcow2', '-c', `write -P 0x5a 0 ${writtenMiB}M`, made.path], { stdio: 'ignore' });
  const body = readFileSync(made.path);
  served.set(`/${name}.qcow2`, { body, slow });
  return {
    sha256: createHash('sha256').update(body).digest('hex'),
    url: `http://127.0.0.1:${port}/${name}.qcow2`,
    size: body.length,
  };
}

async function openHosts(): Promise<void> {
  await app.nav('Hosts').click();
  await loopCard().getByText('connected', { exact: true }).waitFor({ timeout: 60_000 });
  await expect.poll(() => choice().isEnabled(), { timeout: 15_000 }).toBe(true);
}

/** Launches `name` on loop with `imageName` from the dialog; resolves with the dialog once the upload step is done. */
async function launchUntilUploaded(
  name: string,
  imageName: string,
  whileUploading?: (dialog: ReturnType<Page['getByRole']>) => Promise<void>,
) {
  await app.nav('Proxies').click();
  await page
    .getByRole('toolbar', { name: 'Proxy actions' })
    .getByRole('button', { name: 'Launch', exact: true })
    .click({ timeout: 60_000 });
  const form = page.getByRole('dialog', { name: 'Launch a proxy' });
  await form.getByRole('textbox', { name: 'Name' }).fill(name);
  await form.getByRole('combobox', { name: 'Host' }).selectOption('loop');
  await form.getByRole('combobox', { name: 'Image' }).selectOption(imageName);
  await form.getByRole('button', { name: 'Launch', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: `Launching ${name}` });
  await dialog.waitFor();
  await whileUploading?.(dialog);
  await dialog.getByRole('listitem', { name: 'Upload the image to the host: done' }).waitFor({ timeout: 90_000 });
  return dialog;
}

/** Cancels the launch (the base stays: it is shared) and closes the dialog. */
async function cancel(dialog: ReturnType<Page['getByRole']>): Promise<void> {
  await dialog.getByRole('button', { name: 'Cancel launch' }).click();
  await dialog.getByText('The launch was cancelled').waitFor({ timeout: 60_000 });
  await dialog.getByRole('button', { name: 'Close', exact: true }).click();
}

beforeAll(async () => {
  client = await systemClient();
  server = createServer((req, res) => {
    const agent = req.headers['user-agent'] ?? '';
    agents.push({ path: req.url ?? '', agent });
    const file = served.get(req.url ?? '');
    // The fallback's image refuses curl: to the host it is a URL that does not answer.
    if (!file || (req.url === '/refused.qcow2' && agent.startsWith('curl/'))) return void res.writeHead(403).end();
    res.writeHead(200, { 'content-length': file.body.length, 'content-type': 'application/octet-stream' });
    if (req.method === 'HEAD') return void res.end();
    if (!file.slow) return void res.end(file.body);
    // A tenth of a second's worth every 100 ms; a reader that stops (the probe's 32 bytes) ends it.
    let at = 0;
    const step = SLOW_RATE / 10;
    const timer = setInterval(() => {
      if (res.destroyed || at >= file.body.length) {
        clearInterval(timer);
        if (!res.destroyed) res.end();
        return;
      }
      res.write(file.body.subarray(at, (at += step)));
    }, 100);
    res.on('close', () => clearInterval(timer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  app = await openApp({
    prefix: 'egress-image-transfer-',
    config: (home) => {
      mkdirSync(join(home, '.ssh'), { mode: 0o700 });
      copyFileSync(env.EGRESS_TEST_KNOWN_HOSTS, join(home, '.ssh', 'known_hosts'));
      images.refused = image(home, 'refused', 24 * 1024 + 4, false, port);
      images.slow = image(home, 'slow', 24 * 1024 + 8, true, port, 12);
      const loop = `{ name: loop, address: 127.0.0.1, sshPort: ${env.EGRESS_TEST_SSH_PORT}, sshUser: root, identityFile: ${env.EGRESS_TEST_SSH_KEY}, pool: ${env.EGRESS_TEST_POOL}, network: ${env.EGRESS_TEST_NETWORK}, domainType: qemu }`;
      return testConfig(env, {
        hosts: [loop],
        images: [
          `refused: { url: "${images.refused.url}", sha256: ${images.refused.sha256} }`,
          `slow: { url: "${images.slow.url}", sha256: ${images.slow.sha256} }`,
        ],
        defaults: '{ machineType: tiny, image: slow }',
      });
    },
  });
  page = app.page;
  await cleanUp();
}, 120_000);

async function cleanUp(): Promise<void> {
  const bases = Object.values(images).map((i) => baseVolumeName(i.sha256, 'qcow2'));
  await removeProxy(client, FELL_BACK);
  await removeProxy(client, FETCHED, bases);
}

afterAll(async () => {
  await app?.close();
  if (client) {
    await cleanUp().catch(() => undefined);
    await client.close();
  }
  await new Promise((r) => server?.close(r));
});

describe('browser: how base images reach an SSH host', () => {
  it('a choice made in the Hosts view is in settings.json and is what the CLI prints; one made with the CLI is what the view shows', async () => {
    await openHosts();
    await expect(choice().inputValue()).resolves.toBe('auto');
    await choice().selectOption('upload');
    await transfer()
      .getByRole('status')
      .filter({ hasText: 'Saved: upload from this machine from the next launch on loop' })
      .waitFor();
    expect(settingsOnDisk().hosts.loop!.imageTransfer).toBe('upload');
    expect(readFileSync(join(app.home, 'config.yaml'), 'utf8')).not.toContain('imageTransfer');
    expect(await cli('hosts', 'image-transfer', 'loop')).toMatchObject({ code: 0, stdout: 'loop: upload\n' });

    expect((await cli('hosts', 'image-transfer', 'loop', 'fetch')).code).toBe(0);
    await page.reload();
    await openHosts();
    await expect(choice().inputValue()).resolves.toBe('fetch');
    await choice().selectOption('auto');
    await transfer().getByRole('status').filter({ hasText: 'Saved: automatic' }).waitFor();
    expect(await cli('hosts', 'image-transfer', 'loop')).toMatchObject({ code: 0, stdout: 'loop: auto\n' });
  });

  it('auto, on a URL the host cannot fetch: uploaded from this machine, and the step, the Hosts view and the CLI say why', async () => {
    const why = /not fetched on the host: the image URL does not answer from the host \(.*403.*\)/;
    const dialog = await launchUntilUploaded(FELL_BACK, 'refused');
    const step = dialog.getByRole('listitem', { name: 'Upload the image to the host: done' });
    await expect(step.innerText()).resolves.toMatch(
      new RegExp(`uploaded ${baseVolumeName(images.refused.sha256, 'qcow2')} \\(${why.source}\\)`),
    );
    await cancel(dialog);
    expect(settingsOnDisk().hosts.loop!.lastTransfer).toMatchObject({
      mode: 'upload',
      reason: expect.stringMatching(/^the image URL does not answer from the host/),
      volume: baseVolumeName(images.refused.sha256, 'qcow2'),
    });

    await openHosts();
    await expect
      .poll(() => transfer().getByRole('note').innerText(), { timeout: 15_000 })
      .toMatch(new RegExp(`Last image: uploaded from this machine, ${why.source}`));
    const printed = await cli('hosts', 'image-transfer', 'loop');
    expect(printed.code).toBe(0);
    expect(printed.stdout).toMatch(
      new RegExp(
        `^loop: auto\\nlast image: ${baseVolumeName(images.refused.sha256, 'qcow2')} uploaded from this machine \\(${why.source}\\), `,
      ),
    );
  });

  it('auto, on a URL the host reaches: the host downloads it, the task shows the host\'s progress, then "fetched"; the Hosts view says so', async () => {
    const volume = baseVolumeName(images.slow.sha256, 'qcow2');
    const seen: number[] = [];
    const dialog = await launchUntilUploaded(FETCHED, 'slow', async (d) => {
      await d.getByRole('listitem', { name: 'Upload the image to the host: running' }).waitFor({ timeout: 60_000 });
      await expect(
        d.getByRole('listitem', { name: 'Upload the image to the host: running' }).innerText(),
      ).resolves.toContain(`loop downloads ${images.slow.url} itself`);
      // The bar's value is the staged file's size on the host, polled once a second: seen part-way at least once.
      const bar = d.getByRole('progressbar', { name: 'Progress of upload' });
      await expect
        .poll(
          async () => {
            const [value, max] = await Promise.all([
              bar.getAttribute('value').catch(() => null),
              bar.getAttribute('max').catch(() => null),
            ]);
            if (value !== null && max === String(images.slow.size)) seen.push(Number(value));
            return seen.some((v) => v > 0 && v < images.slow.size);
          },
          { timeout: 30_000, interval: 100 },
        )
        .toBe(true);
    });
    await expect(
      dialog.getByRole('listitem', { name: 'Upload the image to the host: done' }).innerText(),
    ).resolves.toContain(`fetched ${volume} on loop (downloaded and checked there)`);
    await cancel(dialog);
    // Only the host's curl asked for it: this machine never downloaded the image.
    expect(agents.filter((a) => a.path === '/slow.qcow2').every((a) => a.agent.startsWith('curl/'))).toBe(true);
    expect(settingsOnDisk().hosts.loop).toMatchObject({
      imageTransfer: 'auto',
      lastTransfer: { mode: 'fetch', volume },
    });

    await openHosts();
    await transfer().getByText('Last image: downloaded by the host itself').waitFor({ timeout: 15_000 });
    await loopCard().scrollIntoViewIfNeeded();
    await loopCard().screenshot({ path: join(SHOTS, 'hosts-image-transfer.png') });
    publishScreenshot(join(SHOTS, 'hosts-image-transfer.png'), join(DOCS_SHOTS, 'hosts-image-transfer.png'));
  });

  it('logs no page error', () => {
    expect(app.errors).toEqual([]);
  });
});
