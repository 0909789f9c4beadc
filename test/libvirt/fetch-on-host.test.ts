/**
 * Fetch-on-host against the real hypervisor through the test sshd (`loop`): the host
 * downloads the image from an HTTP server on loopback (which it reaches: sshd runs on this
 * machine), checks it, and libvirt copies it into the pool. The proof that the bytes came
 * by the host: every request the server saw came from curl, and the launching process's
 * own image cache stays empty (the upload path streams from that cache and nothing else).
 * Then the fallback: a URL that does not answer the host's curl is uploaded, saying why.
 */
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LibvirtClient, findVolume } from '../../electron/libvirt/index.js';
import { baseVolumeName } from '../../electron/services/provider/kvm/names.js';
import { runCliProcess } from '../support/cli.js';
import { removeProxy, systemClient, testPool } from '../support/libvirt.js';
import { TINY_MACHINE_TYPE, hypervisorState, providerHome, tinyImage } from '../support/provider.js';
import { testEnv } from '../support/env.js';
import { foreignOrOpenEntries, giveTo, testUsers, userHome } from '../support/users.js';
import { tempDir } from '../support/temp-dir.js';

const env = testEnv();
const FETCHED = 'egtest-fetch-host';
const MEMBER = 'egtest-fetch-member';
const UPLOADED = 'egtest-fetch-fallback';
let client: LibvirtClient;
let server: Server;
let base: string;
/** Every request the server saw: method, path and User-Agent. */
const seen: Array<{ method: string; path: string; agent: string }> = [];
const images = new Map<string, Buffer>();
const bases: string[] = [];

const loop = `{ name: loop, address: 127.0.0.1, sshPort: ${env.EGRESS_TEST_SSH_PORT}, sshUser: root, identityFile: ${env.EGRESS_TEST_SSH_KEY}, pool: ${env.EGRESS_TEST_POOL}, network: ${env.EGRESS_TEST_NETWORK}, domainType: qemu }`;

function sshHome(prefix: string): string {
  const home = tempDir(prefix);
  mkdirSync(join(home, '.ssh'), { mode: 0o700 });
  copyFileSync(env.EGRESS_TEST_KNOWN_HOSTS, join(home, '.ssh', 'known_hosts'));
  return home;
}

/** A fresh image (its own digest, so its base is not in the pool yet), served at /NAME. */
function serve(home: string, name: string, sizeKiB: number): { path: string; sha256: string; url: string } {
  const image = tinyImage(home, sizeKiB);
  images.set(`/${name}`, readFileSync(image.path));
  bases.push(baseVolumeName(image.sha256, 'qcow2'));
  return { ...image, url: `${base}/${name}` };
}

const stagingDirs = (): string[] => readdirSync('/var/tmp').filter((n) => n.startsWith('egress-stage.'));

beforeAll(async () => {
  server = createServer((req, res) => {
    const agent = req.headers['user-agent'] ?? '';
    seen.push({ method: req.method ?? '', path: req.url ?? '', agent });
    const body = images.get(req.url ?? '');
    // The fallback's image refuses curl: to the host it is a URL that does not answer.
    if (!body || (req.url === '/refuses-curl.qcow2' && agent.startsWith('curl/'))) {
      res.writeHead(403).end();
      return;
    }
    res.writeHead(200, { 'content-length': body.length, 'content-type': 'application/octet-stream' });
    res.end(req.method === 'HEAD' ? undefined : body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  client = await systemClient();
});

afterAll(async () => {
  if (client) {
    await removeProxy(client, FETCHED, bases);
    await removeProxy(client, UPLOADED, bases);
    await removeProxy(client, MEMBER, bases);
    await client.close();
  }
  await new Promise((r) => server?.close(r));
});

describe('fetch-on-host', () => {
  it('the SSH host downloads and checks the image itself; libvirt copies it byte for byte into the pool; the launch proceeds', async () => {
    const before = await hypervisorState(client);
    const stagesBefore = stagingDirs();
    const home = sshHome('egress-fetch-host-');
    const image = serve(home, 'fetched.qcow2', 20 * 1024);
    const cli = providerHome('egress-fetch-host-', {
      home,
      host: loop,
      machineType: TINY_MACHINE_TYPE,
      image: { name: 'tiny', ...image },
    }).proxies;

    const launched = await cli('launch', FETCHED, '--allow', '192.168.150.0/24');
    expect(launched.code, launched.stderr).toBe(0);
    expect(launched.stderr).toContain(`image done: not needed here: loop can download ${image.url} itself`);
    expect(launched.stderr).toContain(`upload done: fetched ${baseVolumeName(image.sha256, 'qcow2')} on loop`);
    expect(launched.stderr).toContain('boot done');

    // Only the host's curl asked the server; this process never held the image to upload it.
    const requests = seen.filter((r) => r.path === '/fetched.qcow2');
    expect(requests.length).toBeGreaterThan(0);
    expect(requests.every((r) => r.agent.startsWith('curl/'))).toBe(true);
    expect(requests.filter((r) => r.method === 'GET').length).toBeGreaterThanOrEqual(1);
    const cache = join(home, 'data', 'images');
    expect(existsSync(cache) ? readdirSync(cache) : []).toEqual([]);

    // The base volume holds exactly the image's bytes, and libvirt reads it as the qcow2 it is.
    const vol = await findVolume(client, await testPool(client), baseVolumeName(image.sha256, 'qcow2'));
    expect(vol).not.toBeNull();
    const path = await client.call('STORAGE_VOL_GET_PATH', { vol: vol! });
    expect(createHash('sha256').update(readFileSync(path)).digest('hex')).toBe(image.sha256);
    const info = await client.call('STORAGE_VOL_GET_INFO', { vol: vol! });
    expect(info.capacity).toBe(20n * 1024n * 1024n);

    // Nothing of the staging is left: no pool, no directory.
    const pools = await client.call('CONNECT_LIST_ALL_STORAGE_POOLS', { needResults: 1, flags: 0 });
    expect(pools.pools.map((p) => p.name).filter((n) => n.startsWith('egress-stage-'))).toEqual([]);
    expect(stagingDirs()).toEqual(stagesBefore);

    // A second launch reuses the fetched base as complete: the host only probes (one 32-byte GET), nothing is downloaded.
    expect((await cli('delete', FETCHED)).code).toBe(0);
    const gets = (): number => seen.filter((r) => r.method === 'GET' && r.path === '/fetched.qcow2').length;
    const getsBefore = gets();
    const again = await cli('launch', FETCHED, '--allow', '192.168.150.0/24');
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`upload done: ${baseVolumeName(image.sha256, 'qcow2')} already on loop`);
    expect(gets() - getsBefore).toBe(1);
    expect((await cli('delete', FETCHED)).code).toBe(0);
    await removeProxy(client, FETCHED, bases);
    expect(await hypervisorState(client)).toEqual(before);
  }, 120_000);

  it('a URL the host cannot fetch falls back to the upload from this machine, and the upload step says why', async () => {
    const before = await hypervisorState(client);
    const home = sshHome('egress-fetch-fallback-');
    const image = serve(home, 'refuses-curl.qcow2', 24 * 1024);
    const { proxies: cli, config } = providerHome('egress-fetch-fallback-', {
      home,
      host: loop,
      machineType: TINY_MACHINE_TYPE,
      image: { name: 'tiny', ...image },
    });

    const launched = await cli('launch', UPLOADED, '--allow', '192.168.150.0/24');
    expect(launched.code, launched.stderr).toBe(0);
    expect(launched.stderr).toMatch(
      new RegExp(
        `upload done: uploaded ${baseVolumeName(image.sha256, 'qcow2')} \\(not fetched on the host: the image URL does not answer from the host \\(.*403.*\\)\\)`,
      ),
    );
    // This machine downloaded it (not curl) into its cache, and uploaded it from there.
    expect(
      seen.some((r) => r.path === '/refuses-curl.qcow2' && r.method === 'GET' && !r.agent.startsWith('curl/')),
    ).toBe(true);
    expect(readdirSync(join(home, 'data', 'images')).length).toBeGreaterThan(0);

    // Set to fetch (the app's settings file), the same host refuses before anything is created; the flag overrides the setting.
    expect((await cli('delete', UPLOADED)).code).toBe(0);
    await removeProxy(client, UPLOADED, bases);
    expect(
      (
        await runCliProcess(['--config', config, 'hosts', 'image-transfer', 'loop', 'fetch'], {
          HOME: home,
          EGRESS_DESK_HOME: join(home, 'data'),
        })
      ).code,
    ).toBe(0);
    const forced = await cli('launch', UPLOADED, '--allow', '192.168.150.0/24');
    expect(forced.code).toBe(1);
    expect(forced.stderr).toContain(
      'loop was set to fetch images itself, but the image URL does not answer from the host',
    );
    expect(await hypervisorState(client)).toEqual(before);
    const overridden = await cli('launch', UPLOADED, '--allow', '192.168.150.0/24', '--image-transfer', 'upload');
    expect(overridden.code, overridden.stderr).toBe(0);
    expect(overridden.stderr).toMatch(/upload done: (uploaded|egress-base-\S+ already on loop)/);
    expect(overridden.stderr).not.toContain('not fetched on the host');
    expect((await cli('delete', UPLOADED)).code).toBe(0);
    await removeProxy(client, UPLOADED, bases);
    expect(await hypervisorState(client)).toEqual(before);
  }, 120_000);

  it("works for a non-root SSH user in the libvirt group: the download is theirs, the pool copy is libvirt's", async () => {
    const { member } = testUsers(env);
    const before = await hypervisorState(client);
    const stagesBefore = stagingDirs();
    const home = userHome(member, 'egress-fetch-member-');
    const image = serve(home, 'member.qcow2', 28 * 1024);
    giveTo(member, image.path);
    const knownHosts = join(home, '.ssh', 'known_hosts');
    copyFileSync(env.EGRESS_TEST_KNOWN_HOSTS, knownHosts);
    chmodSync(knownHosts, 0o600);
    giveTo(member, knownHosts);
    const host = `{ name: loop, address: 127.0.0.1, sshPort: ${env.EGRESS_TEST_SSH_PORT}, sshUser: ${member.name}, identityFile: ${member.sshKey}, pool: ${env.EGRESS_TEST_POOL}, network: ${env.EGRESS_TEST_NETWORK}, domainType: qemu }`;
    const cli = providerHome('', {
      home,
      host,
      machineType: TINY_MACHINE_TYPE,
      image: { name: 'tiny', ...image },
      as: member,
    }).proxies;

    const launched = await cli('launch', MEMBER, '--allow', '192.168.150.0/24', '--image-transfer', 'fetch');
    expect(launched.code, launched.stderr).toBe(0);
    expect(launched.stderr).toContain(`upload done: fetched ${baseVolumeName(image.sha256, 'qcow2')} on loop`);
    const vol = await findVolume(client, await testPool(client), baseVolumeName(image.sha256, 'qcow2'));
    const path = await client.call('STORAGE_VOL_GET_PATH', { vol: vol! });
    expect(createHash('sha256').update(readFileSync(path)).digest('hex')).toBe(image.sha256);
    // The base belongs to the pool (libvirt made it), not to the SSH user who downloaded it.
    expect(statSync(path).uid).not.toBe(member.uid);
    expect(stagingDirs()).toEqual(stagesBefore);
    expect(foreignOrOpenEntries(join(home, 'data'), member.uid)).toEqual([]);

    expect((await cli('delete', MEMBER)).code).toBe(0);
    await removeProxy(client, MEMBER, bases);
    expect(await hypervisorState(client)).toEqual(before);
  }, 120_000);
});
