/**
 * The plain base volume of an image on one host, however it gets there: downloaded by the
 * host itself (fetch-on-host) or from the local cache through a libvirt stream. Shared by
 * a launch and a bake, which report it as their `image` and `upload` steps.
 */
import type { ResolvedKVMHost } from '../../../../../shared/config.js';
import type { BaseVolume } from './base-image.js';
import type { ImageTransferDone, ProviderContext } from '../context.js';
import type { ImageTransfer } from './host-fetch-plan.js';
import { planTransfer } from './host-fetch.js';
import type { LibvirtApi } from '../libvirt-api.js';

/** How the caller shows the two steps: a step begins, reports bytes, ends with a message. */
export interface BaseSteps {
  begin(step: 'image' | 'upload', message?: string): void;
  progress(done: number, total?: number): void;
  finish(message: string): void;
  /** Throws when the caller was cancelled (between steps). */
  check(): void;
}

export interface EnsureBaseInput {
  host: ResolvedKVMHost;
  api: LibvirtApi;
  image: { url: string; sha256: string; format: 'qcow2' | 'raw' };
  /** Overrides the app's per-host setting (default auto). */
  transfer?: ImageTransfer;
  signal?: AbortSignal;
  steps: BaseSteps;
}

/** The image's plain base volume on the host, transferred first when it is missing or incomplete. */
export async function ensureBase(ctx: ProviderContext, input: EnsureBaseInput): Promise<BaseVolume> {
  const { host, api, image, steps, signal } = input;
  const sig = signal ? { signal } : {};
  steps.begin('image');
  const setting = input.transfer ?? (await ctx.imageTransfer?.(host.name)) ?? 'auto';
  const shell = ctx.hostShell?.(host);
  const plan = await planTransfer(setting, host, image.url, shell, signal);
  const progress = {
    ...sig,
    reconnect: () => ctx.apiFor(host.name),
    onProgress: (done: number, total: number) => steps.progress(done, total),
  };
  if (plan.mode === 'fetch' && shell) {
    // The host downloads the image itself: this machine needs no copy of it.
    steps.finish(`not needed here: ${host.name} can download ${image.url} itself`);
    steps.check();
    // The progress is the staged file's size as the host reports it.
    steps.begin('upload', `${host.name} downloads ${image.url} itself`);
    const base = await ctx.baseImages.ensureFetched(
      host.name,
      api,
      host.pool,
      { ...image, shell, probe: plan.probe },
      progress,
    );
    steps.finish(
      base.uploaded
        ? `fetched ${base.volume.name} on ${host.name} (downloaded and checked there)${base.left ? `; left on the host: ${base.left.join(', ')}` : ''}`
        : `${base.volume.name} already on ${host.name}`,
    );
    if (base.uploaded) await told(ctx, host.name, { mode: 'fetch', volume: base.volume.name });
    return base;
  }
  const local = await ctx.images.ensure(
    { url: image.url, sha256: image.sha256, format: image.format },
    { ...sig, onProgress: (p) => steps.progress(p.bytes, p.total) },
  );
  steps.finish(local.path);
  steps.check();
  const reason = plan.mode === 'upload' ? plan.reason : undefined;
  const why = reason ? ` (not fetched on the host: ${reason})` : '';
  steps.begin('upload', `from this machine to ${host.name}${why}`);
  const base = await ctx.baseImages.ensure(host.name, api, host.pool, { ...local, format: image.format }, progress);
  steps.finish(base.uploaded ? `uploaded ${base.volume.name}${why}` : `${base.volume.name} already on ${host.name}`);
  if (base.uploaded)
    await told(ctx, host.name, { mode: 'upload', volume: base.volume.name, ...(reason ? { reason } : {}) });
  return base;
}

/** Tells the app how a base image reached a host; its failure (a settings file it cannot write) never fails the caller. */
async function told(ctx: ProviderContext, host: string, transfer: ImageTransferDone): Promise<void> {
  await ctx.onImageTransfer?.(host, transfer).catch(() => undefined);
}
