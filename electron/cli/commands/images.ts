/** `egress-desk images …`: the local image cache (list, pull, prune) and adding images to the config. */
import { type Command, Option } from 'commander';
import { ImageCache, type RemovedEntry } from '../../services/images/image-cache.js';
import { formatBytes } from '../../../shared/bytes.js';
import { parseSize } from '../../services/images/units.js';
import type { CliContext } from '../context.js';
import { withProvider } from './proxies-provider.js';
import { CliError, EXIT } from '../io.js';
import { loadKvmConfig } from '../load-config.js';
import type { CommandKit } from '../kit.js';
import { ask, formatTable, imageCacheDir, interruptible, ProgressPrinter } from './images-shared.js';
import { type AddOptions, addImage } from './images-add.js';
import { type BakeCliOptions, bakeImage } from './images-bake.js';

const short = (sha256: string): string => sha256.slice(0, 12);

export function registerImageCommands(program: Command, kit: CommandKit): void {
  const images = program
    .command('images')
    .description('the local image cache: list, download, prune; add images to the config');

  images
    .command('list')
    .description(
      "the config's images with their cache state (cached, partial, absent), and cached files no image references",
    )
    .option('--json', 'print JSON: {cacheDir, images: [...], unreferenced: [...]}')
    .action(kit.action(async (ctx, opts: { json?: boolean }) => listImages(ctx, opts.json === true)));

  images
    .command('pull')
    .description('download an image of the config into the cache and verify it (resumes an interrupted download)')
    .argument('<name>', 'image name from the config')
    .option('--json', 'print the result as JSON: {name, path, size, sha256, cached}')
    .action(
      kit.action(async (ctx, name: string, opts: { json?: boolean }) => pullImage(ctx, name, opts.json === true)),
    );

  images
    .command('prune')
    .description(
      'remove cached images no config image references, and their partial downloads; or, with --max-size, the least recently used until the cache fits',
    )
    .option(
      '--max-size <size>',
      'evict least recently used images (referenced or not) until the cache holds at most SIZE, e.g. 20G',
    )
    .option('--dry-run', 'print what would be removed, remove nothing')
    .option('--hosts', 'instead: remove base volumes on the hosts that no proxy uses (shown first, then asked)')
    .option('--yes', 'with --hosts: remove without asking')
    .option(
      '--json',
      'print JSON: {dryRun, freed, removed: [...]} (with --hosts: {dryRun, removed, kept, unreachable})',
    )
    .action(
      kit.action(async (ctx, opts: PruneOptions) => (opts.hosts ? pruneHostBases(ctx, opts) : pruneImages(ctx, opts))),
    );

  images
    .command('add')
    .description(
      'add an image to the config file; its digest comes from --sha256, or from the checksum file the publisher has beside the URL ' +
        '(SHA256SUMS, SHA512SUMS, CHECKSUM…) after you confirm it; a SHA-512 only is checked by downloading the image once; ' +
        "the checksum file's signature is checked with gpgv against the publisher's keyrings on this machine and <data dir>/keyrings, and a BAD one refuses",
    )
    .argument(
      '[name]',
      'image name (1-63 characters of a-z, 0-9, ".", "_" and "-"); a built-in name (see --list) needs no URL',
    )
    .argument('[url]', 'https, http or file URL of the image')
    .option('--list', 'print the built-in list of well-known images, and add nothing')
    .option('--sha256 <hex>', "the image's sha256 digest (skips the checksum file and the question)")
    .option('--checksums <url>', "the publisher's checksum file to read, instead of looking beside the URL")
    .addOption(
      new Option('--format <format>', "disk format (default: qcow2, or the built-in image's)").choices([
        'qcow2',
        'raw',
      ]),
    )
    .option('--yes', "accept the publisher's digest (and the download a SHA-512 needs) without asking")
    .option('--replace', 'replace an image of the same name')
    .option('--default', 'also make it the default image (kvm.defaults.image)')
    .option(
      '--json',
      'print the result as JSON: {name, file, replaced, image, cached, published: {algorithm, digest, sumsUrl, listedName, signature}}',
    )
    .action(
      kit.action(async (ctx, name: string | undefined, url: string | undefined, opts: AddOptions) =>
        addImage(ctx, name, url, opts),
      ),
    );

  images
    .command('bake')
    .description(
      'bake an image on a host: boot it once to install the proxy software and the guest agent; later launches there use the baked base and download nothing',
    )
    .argument('<image>', 'image name from the config')
    .option('--host <host>', 'the host to bake on (needed when the config has several)')
    .option('--json', 'print the result as JSON: {host, image, volume, created, recipeHash, ms}')
    .action(kit.action(async (ctx, image: string, opts: BakeCliOptions) => bakeImage(ctx, image, opts)));
}

async function listImages(ctx: CliContext, json: boolean): Promise<number> {
  const config = await loadKvmConfig(ctx);
  const cache = new ImageCache({ dir: imageCacheDir(ctx) });
  const cached = await cache.list();
  const partials = await cache.partials();
  const rows = Object.entries(config.images).map(([name, image]) => {
    const file = cached.find((c) => c.sha256 === image.sha256);
    const partial = partials.find((p) => p.sha256 === image.sha256);
    const row: Record<string, unknown> = {
      name,
      url: image.url,
      sha256: image.sha256,
      format: image.format,
      state: file ? 'cached' : partial ? 'partial' : 'absent',
    };
    if (file) Object.assign(row, { size: file.size, path: file.path, lastUsed: file.lastUsed.toISOString() });
    else if (partial)
      Object.assign(row, {
        downloaded: partial.size,
        ...(partial.total !== undefined ? { total: partial.total } : {}),
      });
    return row;
  });
  const referenced = new Set(Object.values(config.images).map((i) => i.sha256));
  const unreferenced = cached.filter((c) => !referenced.has(c.sha256));
  if (json) {
    const extra = unreferenced.map((c) => ({
      sha256: c.sha256,
      format: c.format,
      path: c.path,
      size: c.size,
      lastUsed: c.lastUsed.toISOString(),
    }));
    ctx.io.stdout(`${JSON.stringify({ cacheDir: cache.dir, images: rows, unreferenced: extra }, null, 2)}\n`);
    return EXIT.ok;
  }
  if (rows.length === 0) ctx.io.stdout('no images in the config; add one with `egress-desk images add NAME URL`\n');
  else {
    const table = rows.map((r) => {
      let size = '-';
      if (r.state === 'cached') size = formatBytes(r.size as number);
      if (r.state === 'partial')
        size = `${formatBytes(r.downloaded as number)}${r.total !== undefined ? ` of ${formatBytes(r.total as number)}` : ''}`;
      return [String(r.name), String(r.state), size, short(String(r.sha256)), String(r.url)];
    });
    ctx.io.stdout(formatTable([['NAME', 'STATE', 'SIZE', 'SHA256', 'URL'], ...table]));
  }
  for (const c of unreferenced) {
    ctx.io.stdout(
      `not in the config: ${short(c.sha256)} ${formatBytes(c.size)}, last used ${c.lastUsed.toISOString().slice(0, 10)} (\`egress-desk images prune\` removes it)\n`,
    );
  }
  return EXIT.ok;
}

async function pullImage(ctx: CliContext, name: string, json: boolean): Promise<number> {
  const config = await loadKvmConfig(ctx);
  const image = config.images[name];
  if (!image) {
    const known = Object.keys(config.images);
    const hint = known.length
      ? `known: ${known.join(', ')}`
      : 'the config has none; add one with `egress-desk images add NAME URL`';
    throw new CliError(`no image named ${JSON.stringify(name)} (${hint})`, EXIT.failed);
  }
  const cache = new ImageCache({ dir: imageCacheDir(ctx) });
  const progress = new ProgressPrinter(ctx, name);
  ctx.debug(`cache ${cache.dir}, image ${image.url}`);
  const r = await interruptible((signal) =>
    cache.ensure(image, { signal, onProgress: (p) => progress.update(p) }),
  ).finally(() => progress.end());
  if (json) ctx.io.stdout(`${JSON.stringify({ name, ...r }, null, 2)}\n`);
  else
    ctx.io.stdout(
      `${name}: ${r.cached ? 'already in the cache' : 'downloaded and verified'}: ${r.path} (${formatBytes(r.size)}, sha256 ${short(r.sha256)}…)\n`,
    );
  return EXIT.ok;
}

interface PruneOptions {
  hosts?: boolean;
  yes?: boolean;
  maxSize?: string;
  dryRun?: boolean;
  json?: boolean;
}

async function pruneImages(ctx: CliContext, opts: PruneOptions): Promise<number> {
  let maxBytes: number | undefined;
  if (opts.maxSize !== undefined) {
    maxBytes = parseSize(opts.maxSize);
    if (maxBytes === undefined)
      throw new CliError(
        `--max-size: must be a size such as 20G, 512M or 1.5T (got ${JSON.stringify(opts.maxSize)})`,
        EXIT.usage,
      );
  }
  // Pruning decides from the config: an invalid one stops it here (loadKvmConfig throws) rather than remove too much.
  const config = await loadKvmConfig(ctx);
  const cache = new ImageCache({ dir: imageCacheDir(ctx) });
  const dryRun = opts.dryRun === true;
  const removed: RemovedEntry[] =
    maxBytes === undefined
      ? await cache.prune({
          maxBytes: 0,
          keep: Object.values(config.images).map((i) => i.sha256),
          partials: 'unkept',
          dryRun,
        })
      : await cache.prune({ maxBytes, partials: 'stale', dryRun });
  const freed = removed.reduce((sum, r) => sum + r.size, 0);
  if (opts.json) {
    const list = removed.map((r) => ({ ...r, lastUsed: r.lastUsed.toISOString() }));
    ctx.io.stdout(`${JSON.stringify({ dryRun, freed, removed: list }, null, 2)}\n`);
    return EXIT.ok;
  }
  const verb = dryRun ? 'would remove' : 'removed';
  for (const r of removed) {
    const what = r.kind === 'image' ? `image, last used ${r.lastUsed.toISOString().slice(0, 10)}` : 'partial download';
    const digest = r.sha256 !== undefined ? short(r.sha256) : `sha512:${short(r.sha512 ?? '')}`;
    ctx.io.stdout(`${verb} ${digest} ${formatBytes(r.size)} (${what})\n`);
  }
  ctx.io.stdout(
    removed.length === 0 ? 'nothing to remove\n' : `${dryRun ? 'would free' : 'freed'} ${formatBytes(freed)}\n`,
  );
  return EXIT.ok;
}

/**
 * `images prune --hosts`: base volumes on the hosts that nothing uses (provider/kvm/images/base-prune.ts
 * says how "uses" is judged), shown, then removed after a yes (or --yes); each is judged
 * again just before it goes. Never one in use; a host that cannot be read is left alone.
 */
async function pruneHostBases(ctx: CliContext, opts: PruneOptions): Promise<number> {
  if (opts.maxSize !== undefined)
    throw new CliError('--max-size applies to the local cache, not to --hosts', EXIT.usage);
  return withProvider(ctx, async ({ provider }) => {
    const found = await provider.unusedBases();
    const dryRun = opts.dryRun === true;
    const show = (): void => {
      for (const u of found.unused)
        ctx.io.stderr(`unused: ${u.host}  ${u.pool}/${u.volume}  ${formatBytes(u.bytes)}\n`);
      for (const k of found.kept) ctx.io.stderr(`kept:   ${k.host}  ${k.pool}/${k.volume}: ${k.why}\n`);
      for (const u of found.unreachable)
        ctx.io.stderr(`host ${u.host} could not be checked (nothing removed there): ${u.error}\n`);
    };
    if (!opts.json) show();
    let removed: typeof found.unused = [];
    let kept = found.kept;
    if (found.unused.length && !dryRun) {
      const total = formatBytes(found.unused.reduce((n, u) => n + u.bytes, 0));
      const yes =
        opts.yes === true ||
        /^y(es)?$/i.test(await ask(ctx, `remove ${found.unused.length} base volume(s), ${total}? [y/N] `));
      if (yes) {
        // What was kept at the first look stays in the report; the second look (just
        // before removing) adds the confirmed ones it kept after all.
        const second = await provider.removeBases(found.unused);
        removed = second.removed;
        kept = [...found.kept, ...second.kept];
      } else if (!opts.json) ctx.io.stderr('nothing removed\n');
    }
    if (opts.json)
      ctx.io.stdout(
        `${JSON.stringify({ dryRun, unused: found.unused, removed, kept, unreachable: found.unreachable }, null, 2)}\n`,
      );
    else if (!found.unused.length) ctx.io.stdout('no unused base volumes\n');
    else for (const r of removed) ctx.io.stdout(`removed ${r.host}  ${r.pool}/${r.volume}  ${formatBytes(r.bytes)}\n`);
    return found.unreachable.length ? EXIT.failed : EXIT.ok;
  });
}
