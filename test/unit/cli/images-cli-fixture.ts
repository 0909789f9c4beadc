/**
 * What the `egress-desk images` CLI tests share (images-pull-cli, images-add-cli,
 * images-add-signature-cli): an image server and a data directory made anew before each
 * test, a config naming two of the server's images, and the images' bytes. One place, so
 * that the three files test the same setup.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect } from 'vitest';
import { parse, stringify } from 'yaml';
import { type CliResult, cliRunner } from '../../support/cli.js';
import { tempDir } from '../../support/temp-dir.js';
import { bufferFile, sha256, TestServer } from '../images/server.js';

export const debian = Buffer.from('debian image bytes\n'.repeat(5000));
export const ubuntu = Buffer.from('ubuntu image bytes\n'.repeat(7000));
export const other = Buffer.from('an image no config names\n'.repeat(100));
export const sha512 = (b: Buffer): string => createHash('sha512').update(b).digest('hex');
/** What is said of a checksum file with no signature beside it. */
export const unsigned = (sums: string) =>
  `note: signature not verified: no signature published beside the checksum file (looked for ${sums}.gpg, ${sums}.sign); the checksum file is as trustworthy as the connection it came over\n`;
export const expectNoStack = (text: string) => expect(text).not.toMatch(/^\s+at /m);

type ConfigImages = Record<string, { url: string; sha256: string; format?: string }>;

/** A test's server and directories, and the CLI run on them. */
export interface ImagesCli {
  /** Serves debian-12, noble and an image no config names, with their checksum files. */
  readonly server: TestServer;
  /** The data directory (EGRESS_DESK_HOME): config.yaml, images/, keyrings/. */
  readonly home: string;
  /** HOME and the working directory. */
  readonly work: string;
  /** The environment that points the CLI at `home` and `work`. */
  env(): Record<string, string>;
  /** The built CLI, as a child process. */
  cli(...args: string[]): Promise<CliResult>;
  configFile(): string;
  cacheDir(): string;
  /** Writes a valid config with these images (and one host, one machine type). */
  writeConfig(images: Record<string, unknown>): void;
  readConfig(): { kvm: { images?: ConfigImages; defaults?: { image?: string } } };
}

/**
 * Registers the file's beforeEach (a new server, data directory and config naming
 * debian-12 and noble) and afterEach (the server closed); the object it returns reads
 * the current test's.
 */
export function useImagesCli(): ImagesCli {
  let server: TestServer | undefined;
  let home = '';
  let work = '';
  const configFile = () => join(home, 'config.yaml');
  const writeConfig = (images: Record<string, unknown>): void => {
    mkdirSync(home, { recursive: true });
    writeFileSync(
      configFile(),
      stringify({
        type: 'kvm',
        kvm: {
          hosts: [{ name: 'local', address: 'local' }],
          machineTypes: { small: { vcpus: 1, memoryMiB: 512 } },
          images,
        },
      }),
    );
  };

  beforeEach(async () => {
    const s = await new TestServer().start();
    server = s;
    s.files.set('/debian/disk.qcow2', bufferFile(debian));
    s.files.set('/ubuntu/noble.img', bufferFile(ubuntu));
    s.files.set('/other/x.qcow2', bufferFile(other));
    s.files.set(
      '/ubuntu/SHA256SUMS',
      bufferFile(Buffer.from(`${sha256('x')} *jammy.img\n${sha256(ubuntu)} *noble.img\n`)),
    );
    s.files.set(
      '/debian/SHA512SUMS',
      bufferFile(Buffer.from(`${'d'.repeat(128)}  other.qcow2\n${sha512(debian)}  disk.qcow2\n`)),
    );
    const root = tempDir('egress-images-cli-');
    home = join(root, 'home');
    work = join(root, 'work');
    mkdirSync(work);
    writeConfig({
      'debian-12': { url: s.url('/debian/disk.qcow2'), sha256: sha256(debian) },
      noble: { url: s.url('/ubuntu/noble.img'), sha256: sha256(ubuntu), format: 'raw' },
    });
  });
  afterEach(() => server?.close());

  return {
    get server() {
      if (!server) throw new Error('the image server starts before each test: use it inside one');
      return server;
    },
    get home() {
      return home;
    },
    get work() {
      return work;
    },
    env: () => ({ EGRESS_DESK_HOME: home, HOME: work }),
    cli: cliRunner(() => ({ home: work, data: home })),
    configFile,
    cacheDir: () => join(home, 'images'),
    writeConfig,
    readConfig: () => parse(readFileSync(configFile(), 'utf8')) as ReturnType<ImagesCli['readConfig']>,
  };
}
