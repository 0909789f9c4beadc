/**
 * `egress-desk images add`: an image into the config file, with the digest its publisher
 * lists. The checksum file beside the URL (or --checksums) is read, shown and confirmed;
 * a SHA-512 (all Debian publishes) is checked by downloading the image once, computing its
 * SHA-256 in the same pass, and storing that: the config's field stays `sha256`. The
 * checksum file's signature is checked with gpgv and the outcome said; a BAD one refuses.
 */
import { basename } from 'node:path';
import { formatIssue, type KVMImage, type ProviderConfig, validateProviderConfig } from '../../../shared/config.js';
import { KNOWN_IMAGES, knownImage } from '../../../shared/known-images.js';
import { ConfigStore } from '../../services/config/config-store.js';
import { BadSignatureError, PublisherDigestError } from '../../services/images/checksums.js';
import { type CheckedDigest, findCheckedDigest } from '../../services/images/signature.js';
import { keyringDir } from '../../services/config/paths.js';
import { describeSignature } from '../../../shared/signature.js';
import { ImageCache } from '../../services/images/image-cache.js';
import { formatBytes } from '../../../shared/bytes.js';
import type { CliContext } from '../context.js';
import { CliError, EXIT } from '../io.js';
import { loadConfigForCommand } from '../load-config.js';
import { ask, formatTable, imageCacheDir, interruptible, isTTY, ProgressPrinter } from './images-shared.js';

export interface AddOptions {
  list?: boolean;
  sha256?: string;
  checksums?: string;
  format?: 'qcow2' | 'raw';
  yes?: boolean;
  replace?: boolean;
  default?: boolean;
  json?: boolean;
}

export async function addImage(
  ctx: CliContext,
  name: string | undefined,
  url: string | undefined,
  opts: AddOptions,
): Promise<number> {
  if (opts.list) {
    if (name !== undefined) throw new CliError('--list adds nothing: pass it alone', EXIT.usage);
    return listKnown(ctx);
  }
  if (name === undefined)
    throw new CliError('images add: NAME is missing (or pass --list to see the built-in images)', EXIT.usage);
  const known = url === undefined ? knownImage(name) : undefined;
  if (url === undefined && !known) {
    throw new CliError(
      `images add: URL is missing; only a built-in image (${KNOWN_IMAGES.map((k) => k.name).join(', ')}) can be added by name alone`,
      EXIT.usage,
    );
  }
  const imageUrl = url ?? known!.url;
  const checksumsUrl = opts.checksums ?? known?.checksumsUrl;
  const format = opts.format ?? known?.format;
  if (opts.sha256 !== undefined && opts.checksums !== undefined)
    throw new CliError('pass --sha256 or --checksums, not both', EXIT.usage);
  let sha256 = opts.sha256?.toLowerCase();
  if (sha256 !== undefined && !/^[0-9a-f]{64}$/.test(sha256)) {
    throw new CliError(`--sha256: must be 64 hexadecimal characters (got ${JSON.stringify(opts.sha256)})`, EXIT.usage);
  }
  const { file, config } = await loadConfigForCommand(ctx);
  if (config.type !== 'kvm' || !config.kvm)
    throw new CliError(
      `${file} configures the ${config.type} provider; Egress Desk manages kvm providers`,
      EXIT.failed,
    );
  const existing = config.kvm.images?.[name];
  if (existing && !opts.replace) {
    throw new CliError(
      `${file} already has an image named ${JSON.stringify(name)} (${existing.url}); pass --replace to replace it`,
      EXIT.failed,
    );
  }
  const entry = (digest: string): KVMImage => ({ url: imageUrl, sha256: digest, ...(format ? { format } : {}) });
  // Check the name and URL before any network access (the digest is not known yet: a placeholder stands in).
  const check = validateProviderConfig(withImage(config, name, entry(sha256 ?? '0'.repeat(64)), opts.default === true));
  if (!check.ok)
    throw new CliError(
      `cannot add image ${JSON.stringify(name)}:\n${check.issues.map((i) => `  ${formatIssue(i)}`).join('\n')}`,
      EXIT.usage,
    );

  let downloaded = false;
  let published: CheckedDigest | undefined;
  if (sha256 === undefined) {
    if (!opts.yes && !isTTY(ctx, 'stdin')) {
      throw new CliError(
        "no terminal to confirm the digest from the publisher's checksum file: pass --yes to accept it, or --sha256 HEX with a digest you trust",
        EXIT.failed,
      );
    }
    let found: CheckedDigest;
    try {
      found = await findCheckedDigest(imageUrl, {
        keyringDir: keyringDir(ctx.dataDir),
        ...(checksumsUrl !== undefined ? { checksumsUrl } : {}),
      });
    } catch (err) {
      // A BAD signature is no missing digest: another checksum file or a typed digest is not the advice.
      if (err instanceof BadSignatureError) throw new CliError(err.message, EXIT.failed);
      if (err instanceof PublisherDigestError)
        throw new CliError(
          `${err.message}; pass --checksums URL, or --sha256 HEX with a digest you trust`,
          EXIT.failed,
        );
      throw err;
    }
    published = found;
    ctx.io.stderr(`${found.sumsUrl} lists ${found.listedName} with ${found.algorithm} ${found.digest}\n`);
    ctx.io.stderr(`${found.signature.state === 'verified' ? '' : 'note: '}${describeSignature(found.signature)}\n`);
    if (found.algorithm === 'sha256') {
      if (!(await confirm(ctx, opts, `Store image ${name} with sha256 ${found.digest}? [y/N] `)))
        return notStored(ctx, file);
      sha256 = found.digest;
    } else {
      const question = `Only a SHA-512 is published: download ${basename(new URL(imageUrl).pathname)} now, check it, and store image ${name} with its sha256? [y/N] `;
      if (!(await confirm(ctx, opts, question))) return notStored(ctx, file);
      sha256 = await downloadBySha512(ctx, name, imageUrl, found.digest, format);
      downloaded = true;
    }
  }
  await new ConfigStore(file).save(withImage(config, name, entry(sha256), opts.default === true));
  if (opts.json) {
    ctx.io.stdout(
      `${JSON.stringify({ name, file, replaced: existing !== undefined, image: entry(sha256), cached: downloaded, ...(published ? { published } : {}) }, null, 2)}\n`,
    );
    return EXIT.ok;
  }
  const next = downloaded ? 'it is in the image cache already' : `download it with \`egress-desk images pull ${name}\``;
  ctx.io.stdout(`${existing ? 'replaced' : 'added'} image ${name} in ${file} (sha256 ${sha256}); ${next}\n`);
  return EXIT.ok;
}

/** The one download: the SHA-512 checked and the SHA-256 computed from the same bytes; a mismatch deletes the file. */
async function downloadBySha512(
  ctx: CliContext,
  name: string,
  url: string,
  sha512: string,
  format: KVMImage['format'],
): Promise<string> {
  const cache = new ImageCache({ dir: imageCacheDir(ctx) });
  const progress = new ProgressPrinter(ctx, name);
  const got = await interruptible((signal) =>
    cache.ensureBySha512(
      { url, sha512, ...(format ? { format } : {}) },
      { signal, onProgress: (p) => progress.update(p) },
    ),
  ).finally(() => progress.end());
  ctx.io.stderr(
    `${name}: ${formatBytes(got.size)} downloaded; sha512 matches the publisher's; its sha256 is ${got.sha256}\n`,
  );
  return got.sha256;
}

async function confirm(ctx: CliContext, opts: AddOptions, question: string): Promise<boolean> {
  if (opts.yes) return true;
  return /^y(es)?$/i.test(await ask(ctx, question));
}

function notStored(ctx: CliContext, file: string): number {
  ctx.io.stderr(`not stored: ${file} is unchanged\n`);
  return EXIT.failed;
}

function listKnown(ctx: CliContext): number {
  const rows = KNOWN_IMAGES.map((k) => [k.name, k.publishes, k.title]);
  ctx.io.stdout(formatTable([['NAME', 'PUBLISHED', 'IMAGE'], ...rows]));
  ctx.io.stdout('\n');
  for (const k of KNOWN_IMAGES) ctx.io.stdout(`${k.name}:\n  ${k.url}\n  ${k.checksumsUrl}\n`);
  ctx.io.stdout(
    '\nadd one with `egress-desk images add NAME` (its checksum file is read and shown first; a sha512 means one download to learn the sha256)\n',
  );
  return EXIT.ok;
}

/** A copy of `config` with the image set (never mutating the loaded config). */
function withImage(config: ProviderConfig, name: string, image: KVMImage, makeDefault: boolean): ProviderConfig {
  const next = structuredClone(config);
  const kvm = next.kvm!;
  kvm.images = { ...kvm.images, [name]: image };
  if (makeDefault) kvm.defaults = { ...kvm.defaults, image: name };
  return next;
}
