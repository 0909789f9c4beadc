/** `egress-desk images …`: the local image cache (list, pull, prune) and adding images to the config. */
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { type Command, Option } from 'commander';
import { formatIssue, type KVMImage, type ProviderConfig, validateProviderConfig } from '../../../shared/config.js';
import { ConfigStore } from '../../services/config/config-store.js';
import { fetchPublisherDigest, PublisherDigestError } from '../../services/images/checksums.js';
import { ImageCache, type RemovedEntry } from '../../services/images/image-cache.js';
import type { ImageProgress } from '../../services/images/progress.js';
import { formatBytes, parseSize } from '../../services/images/units.js';
import type { CliContext } from '../context.js';
import { CliError, EXIT } from '../io.js';
import { loadConfigForCommand, loadKvmConfig } from '../load-config.js';
import type { CommandKit } from '../program.js';

/** The cache every front end shares: `<data dir>/images`. */
export function imageCacheDir(ctx: CliContext): string {
  return join(ctx.dataDir, 'images');
}

const short = (sha256: string): string => sha256.slice(0, 12);
const isTTY = (ctx: CliContext, stream: 'stdin' | 'stderr'): boolean => ctx.io.isTTY?.[stream] ?? Boolean(process[stream].isTTY);

export function registerImageCommands(program: Command, kit: CommandKit): void {
  const images = program.command('images').description('the local image cache: list, download, prune; add images to the config');

  images
    .command('list')
    .description('the config\'s images with their cache state (cached, partial, absent), and cached files no image references')
    .option('--json', 'print JSON: {cacheDir, images: [...], unreferenced: [...]}')
    .action(kit.action(async (ctx, opts: { json?: boolean }) => listImages(ctx, opts.json === true)));

  images
    .command('pull')
    .description('download an image of the config into the cache and verify it (resumes an interrupted download)')
    .argument('<name>', 'image name from the config')
    .option('--json', 'print the result as JSON: {name, path, size, sha256, cached}')
    .action(kit.action(async (ctx, name: string, opts: { json?: boolean }) => pullImage(ctx, name, opts.json === true)));

  images
    .command('prune')
    .description('remove cached images no config image references, and their partial downloads; or, with --max-size, the least recently used until the cache fits')
    .option('--max-size <size>', 'evict least recently used images (referenced or not) until the cache holds at most SIZE, e.g. 20G')
    .option('--dry-run', 'print what would be removed, remove nothing')
    .option('--json', 'print JSON: {dryRun, freed, removed: [...]}')
    .action(kit.action(async (ctx, opts: PruneOptions) => pruneImages(ctx, opts)));

  images
    .command('add')
    .description('add an image to the config file; its digest comes from --sha256, or from the publisher\'s SHA256SUMS beside the URL after you confirm it')
    .argument('<name>', 'image name (1-63 characters of a-z, 0-9, ".", "_" and "-")')
    .argument('<url>', 'https, http or file URL of the image')
    .option('--sha256 <hex>', 'the image\'s sha256 digest (skips SHA256SUMS and the question)')
    .addOption(new Option('--format <format>', 'disk format (default: qcow2)').choices(['qcow2', 'raw']))
    .option('--yes', 'accept the digest from SHA256SUMS without asking')
    .option('--replace', 'replace an image of the same name')
    .option('--default', 'also make it the default image (kvm.defaults.image)')
    .action(kit.action(async (ctx, name: string, url: string, opts: AddOptions) => addImage(ctx, name, url, opts)));
}

async function listImages(ctx: CliContext, json: boolean): Promise<number> {
  const config = await loadKvmConfig(ctx);
  const cache = new ImageCache({ dir: imageCacheDir(ctx) });
  const cached = await cache.list();
  const partials = await cache.partials();
  const rows = Object.entries(config.images).map(([name, image]) => {
    const file = cached.find((c) => c.sha256 === image.sha256);
    const partial = partials.find((p) => p.sha256 === image.sha256);
    const row: Record<string, unknown> = { name, url: image.url, sha256: image.sha256, format: image.format, state: file ? 'cached' : partial ? 'partial' : 'absent' };
    if (file) Object.assign(row, { size: file.size, path: file.path, lastUsed: file.lastUsed.toISOString() });
    else if (partial) Object.assign(row, { downloaded: partial.size, ...(partial.total !== undefined ? { total: partial.total } : {}) });
    return row;
  });
  const referenced = new Set(Object.values(config.images).map((i) => i.sha256));
  const unreferenced = cached.filter((c) => !referenced.has(c.sha256));
  if (json) {
    const extra = unreferenced.map((c) => ({ sha256: c.sha256, format: c.format, path: c.path, size: c.size, lastUsed: c.lastUsed.toISOString() }));
    ctx.io.stdout(`${JSON.stringify({ cacheDir: cache.dir, images: rows, unreferenced: extra }, null, 2)}\n`);
    return EXIT.ok;
  }
  if (rows.length === 0) ctx.io.stdout('no images in the config; add one with `egress-desk images add NAME URL`\n');
  else {
    const table = rows.map((r) => {
      let size = '-';
      if (r.state === 'cached') size = formatBytes(r.size as number);
      if (r.state === 'partial') size = `${formatBytes(r.downloaded as number)}${r.total !== undefined ? ` of ${formatBytes(r.total as number)}` : ''}`;
      return [String(r.name), String(r.state), size, short(String(r.sha256)), String(r.url)];
    });
    ctx.io.stdout(formatTable([['NAME', 'STATE', 'SIZE', 'SHA256', 'URL'], ...table]));
  }
  for (const c of unreferenced) {
    ctx.io.stdout(`not in the config: ${short(c.sha256)} ${formatBytes(c.size)}, last used ${c.lastUsed.toISOString().slice(0, 10)} (\`egress-desk images prune\` removes it)\n`);
  }
  return EXIT.ok;
}

async function pullImage(ctx: CliContext, name: string, json: boolean): Promise<number> {
  const config = await loadKvmConfig(ctx);
  const image = config.images[name];
  if (!image) {
    const known = Object.keys(config.images);
    const hint = known.length ? `known: ${known.join(', ')}` : 'the config has none; add one with `egress-desk images add NAME URL`';
    throw new CliError(`no image named ${JSON.stringify(name)} (${hint})`, EXIT.failed);
  }
  const cache = new ImageCache({ dir: imageCacheDir(ctx) });
  const progress = new ProgressPrinter(ctx, name);
  ctx.debug(`cache ${cache.dir}, image ${image.url}`);
  // Ctrl-C stops the download cleanly: the partial is flushed and the next pull resumes it.
  const controller = new AbortController();
  const onSignal = (): void => controller.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const r = await cache.ensure(image, { signal: controller.signal, onProgress: (p) => progress.update(p) });
    progress.end();
    if (json) ctx.io.stdout(`${JSON.stringify({ name, ...r }, null, 2)}\n`);
    else ctx.io.stdout(`${name}: ${r.cached ? 'already in the cache' : 'downloaded and verified'}: ${r.path} (${formatBytes(r.size)}, sha256 ${short(r.sha256)}…)\n`);
    return EXIT.ok;
  } catch (err) {
    progress.end();
    throw err;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/**
 * Progress on stderr: one line rewritten in place on a terminal; elsewhere (logs, CI)
 * a plain line every few seconds, so that a log shows progress without thousands of lines.
 */
class ProgressPrinter {
  private readonly tty: boolean;
  private lastPlain = 0;
  private lastPhase?: ImageProgress['phase'];
  private drawn = false;

  constructor(
    private readonly ctx: CliContext,
    private readonly name: string,
  ) {
    this.tty = isTTY(ctx, 'stderr');
  }

  update(p: ImageProgress): void {
    const text = `${this.name}: ${describeProgress(p)}`;
    if (this.tty) {
      this.ctx.io.stderr(`\r\x1b[K${text}`);
      this.drawn = true;
      return;
    }
    const now = Date.now();
    if (p.phase === this.lastPhase && now - this.lastPlain < 5000) return;
    this.lastPhase = p.phase;
    this.lastPlain = now;
    this.ctx.io.stderr(`${text}\n`);
  }

  end(): void {
    if (this.drawn) this.ctx.io.stderr('\r\x1b[K');
    this.drawn = false;
  }
}

function describeProgress(p: ImageProgress): string {
  const of = p.total !== undefined ? ` of ${formatBytes(p.total)} (${Math.floor((p.bytes * 100) / Math.max(1, p.total))}%)` : '';
  if (p.phase === 'rehash') return `checking ${formatBytes(p.bytes)}${of} already downloaded before resuming`;
  if (p.phase === 'wait') return `another process is downloading it: ${formatBytes(p.bytes)}${of}; waiting`;
  const rate = p.rate > 0 ? `, ${formatBytes(p.rate)}/s` : '';
  const eta = p.etaSeconds !== undefined ? `, ${formatDuration(p.etaSeconds)} left` : '';
  return `${formatBytes(p.bytes)}${of}${rate}${eta}`;
}

function formatDuration(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`;
}

interface PruneOptions {
  maxSize?: string;
  dryRun?: boolean;
  json?: boolean;
}

async function pruneImages(ctx: CliContext, opts: PruneOptions): Promise<number> {
  let maxBytes: number | undefined;
  if (opts.maxSize !== undefined) {
    maxBytes = parseSize(opts.maxSize);
    if (maxBytes === undefined) throw new CliError(`--max-size: must be a size such as 20G, 512M or 1.5T (got ${JSON.stringify(opts.maxSize)})`, EXIT.usage);
  }
  // Pruning decides from the config: an invalid one stops it here (loadKvmConfig throws) rather than remove too much.
  const config = await loadKvmConfig(ctx);
  const cache = new ImageCache({ dir: imageCacheDir(ctx) });
  const dryRun = opts.dryRun === true;
  const removed: RemovedEntry[] =
    maxBytes === undefined
      ? await cache.prune({ maxBytes: 0, keep: Object.values(config.images).map((i) => i.sha256), partials: 'unkept', dryRun })
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
    ctx.io.stdout(`${verb} ${short(r.sha256)} ${formatBytes(r.size)} (${what})\n`);
  }
  ctx.io.stdout(removed.length === 0 ? 'nothing to remove\n' : `${dryRun ? 'would free' : 'freed'} ${formatBytes(freed)}\n`);
  return EXIT.ok;
}

interface AddOptions {
  sha256?: string;
  format?: 'qcow2' | 'raw';
  yes?: boolean;
  replace?: boolean;
  default?: boolean;
}

async function addImage(ctx: CliContext, name: string, url: string, opts: AddOptions): Promise<number> {
  let sha256 = opts.sha256?.toLowerCase();
  if (sha256 !== undefined && !/^[0-9a-f]{64}$/.test(sha256)) {
    throw new CliError(`--sha256: must be 64 hexadecimal characters (got ${JSON.stringify(opts.sha256)})`, EXIT.usage);
  }
  const { file, config } = await loadConfigForCommand(ctx);
  if (config.type !== 'kvm' || !config.kvm) throw new CliError(`${file} configures the ${config.type} provider; Egress Desk manages kvm providers`, EXIT.failed);
  const existing = config.kvm.images?.[name];
  if (existing && !opts.replace) {
    throw new CliError(`${file} already has an image named ${JSON.stringify(name)} (${existing.url}); pass --replace to replace it`, EXIT.failed);
  }
  const entry = (digest: string): KVMImage => ({ url, sha256: digest, ...(opts.format ? { format: opts.format } : {}) });
  // Check the name and URL before any network access (the digest is not known yet: a placeholder stands in).
  const check = validateProviderConfig(withImage(config, name, entry(sha256 ?? '0'.repeat(64)), opts.default === true));
  if (!check.ok) throw new CliError(`cannot add image ${JSON.stringify(name)}:\n${check.issues.map((i) => `  ${formatIssue(i)}`).join('\n')}`, EXIT.usage);

  if (sha256 === undefined) {
    if (!opts.yes && !isTTY(ctx, 'stdin')) {
      throw new CliError('no terminal to confirm the digest from the publisher\'s SHA256SUMS: pass --yes to accept it, or --sha256 HEX with a digest you trust', EXIT.failed);
    }
    let found;
    try {
      found = await fetchPublisherDigest(url);
    } catch (err) {
      if (err instanceof PublisherDigestError) throw new CliError(`${err.message}; pass --sha256 HEX with a digest you trust`, EXIT.failed);
      throw err;
    }
    ctx.io.stderr(`${found.sumsUrl} lists ${found.name} with sha256 ${found.sha256}\n`);
    if (!opts.yes) {
      const answer = await ask(ctx, `Store image ${name} with sha256 ${found.sha256}? [y/N] `);
      if (!/^y(es)?$/i.test(answer)) {
        ctx.io.stderr(`not stored: ${file} is unchanged\n`);
        return EXIT.failed;
      }
    }
    sha256 = found.sha256;
  }
  await new ConfigStore(file).save(withImage(config, name, entry(sha256), opts.default === true));
  ctx.io.stdout(`${existing ? 'replaced' : 'added'} image ${name} in ${file} (sha256 ${sha256}); download it with \`egress-desk images pull ${name}\`\n`);
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

/** Asks on stderr, reads one line from stdin; end of input counts as no. */
async function ask(ctx: CliContext, question: string): Promise<string> {
  ctx.io.stderr(question);
  const rl = createInterface({ input: ctx.io.stdin ?? process.stdin, terminal: false });
  try {
    return await new Promise<string>((resolve) => {
      rl.once('line', (line) => resolve(line.trim()));
      rl.once('close', () => resolve(''));
    });
  } finally {
    rl.close();
  }
}

function formatTable(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => `${r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')}\n`).join('');
}
