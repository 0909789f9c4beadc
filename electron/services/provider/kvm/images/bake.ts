/**
 * Baking an image on a host (bake-recipe.ts says what and under which name): the plain
 * base is ensured as for a launch; a qcow2 overlay on it and a NoCloud seed that installs
 * the recipe's packages are created under `egress-baking-…` names; a domain without our
 * metadata element (so never a proxy) boots them; its console is read until the guest says
 * it is done and it powers off; libvirt then copies the overlay into a full, standalone
 * volume (STORAGE_VOL_CREATE_XML_FROM, which flattens the backing chain) named
 * `egress-baked-<sha256>-<recipe hash>.qcow2`; the scratch objects go. A bake that fails
 * or is cancelled removes everything it made (the baked volume too) and is remembered per
 * host, so that launches say why they use the plain base.
 *
 * One bake per host and baked volume in this process (a second caller joins the first);
 * across processes, the baking domain's name is the claim: one that is running belongs to
 * a bake under way elsewhere, one that is shut off is the leftover of a bake that died.
 */
import { Readable } from 'node:stream';
import type { ResolvedKVMHost } from '../../../../../shared/config.js';
import { messageOf } from '../../../../../shared/errors.js';
import {
  type BakeRecipe,
  BAKE_MARKER,
  bakedVolumeName,
  bakingNames,
  buildBakeUserData,
  proxyRecipe,
  recipeHash,
} from '../guest/bake-recipe.js';
import { BakeRegistry, type BakeResult } from './bake-registry.js';
import { ensureBase } from './base-ensure.js';
import { buildMetaData, buildVendorData } from '../guest/cloud-config.js';
import type { ProviderContext } from '../context.js';
import { buildDomainXml } from '../xml/domain-xml.js';
import { resolveDomainType } from '../domain-type.js';
import type { ImageTransfer } from './host-fetch-plan.js';
import type { LibvirtApi, VolumeInfo } from '../libvirt-api.js';
import { instanceMac, instanceUuid } from '../names.js';
import { buildNoCloudSeed } from '../guest/seed-iso.js';
import { buildOverlayVolumeXml, buildPlainVolumeXml, buildSeedVolumeXml } from '../xml/volume-xml.js';

/** The steps of a bake, in order. */
export const BAKE_STEPS = ['image', 'upload', 'seed', 'install', 'copy', 'clean'] as const;
export type BakeStep = (typeof BAKE_STEPS)[number];

export interface BakeEvent {
  step: BakeStep;
  phase: 'start' | 'progress' | 'done';
  message?: string;
  done?: number;
  total?: number;
}

export interface BakeOptions {
  onStep?: (event: BakeEvent) => void;
  signal?: AbortSignal;
  /** Bound on the guest's install and power-off (default 20 min: a first boot under TCG with downloads is slow). */
  timeoutMs?: number;
  imageTransfer?: ImageTransfer;
  /** What to bake (default: every kind's software, {@link launchRecipe}). */
  recipe?: BakeRecipe;
}

export type { BakeResult } from './bake-registry.js';

export const DEFAULT_BAKE_TIMEOUT_MS = 20 * 60_000;
/** How often the baking domain's state is looked at besides its console. */
const POLL_MS = 1000;
/** How much of the console is kept to explain a failure. */
const CONSOLE_TAIL = 2000;

/** A bake failed; everything it made was removed (`left` says what could not be). */
export class BakeError extends Error {
  override readonly name = 'BakeError';
  constructor(
    readonly host: string,
    readonly step: BakeStep,
    cause: unknown,
    readonly left: string[] = [],
  ) {
    super(
      `bake on ${host} failed at step "${step}": ${messageOf(cause)}${left.length ? `; left behind: ${left.join('; ')}` : ''}`,
      { cause },
    );
  }
}

/** The recipe a launch's base is baked with, whatever its kind: every kind's software (one baked base serves all). */
export function launchRecipe(): BakeRecipe {
  return proxyRecipe();
}

/** A launch's base: the baked volume when the host has it, else the plain base and why. */
export type BaseChoice = { baked: VolumeInfo } | { plain: string };

/** Which base a launch on `host` uses for the image `sha256` and `recipe`. */
export async function chooseBase(
  ctx: ProviderContext,
  host: ResolvedKVMHost,
  api: LibvirtApi,
  sha256: string,
  recipe: BakeRecipe,
): Promise<BaseChoice> {
  const name = bakedVolumeName(sha256, recipe);
  const key = BakeRegistry.key(host.name, name);
  if (ctx.bakes.flights.has(key)) return { plain: `the bake of ${name} on ${host.name} is under way` };
  const volume = await api.getVolume(host.pool, name);
  if (volume) return { baked: volume };
  const failed = ctx.bakes.failures.get(key);
  return {
    plain: failed ? `the last bake on ${host.name} failed (${failed})` : `the image is not baked on ${host.name} yet`,
  };
}

/** Whether `host` has the baked base of image `sha256` for the launch recipe (a listing for the app's image row). */
export function bakedName(sha256: string, recipe: BakeRecipe = launchRecipe()): string {
  return bakedVolumeName(sha256, recipe);
}

/** Bakes the config's image `imageName` on `hostName` (see the file's comment); resolves at once when it is baked already. */
export function bake(
  ctx: ProviderContext,
  imageName: string,
  hostName: string,
  options: BakeOptions = {},
): Promise<BakeResult> {
  const host = ctx.config.hosts.find((h) => h.name === hostName);
  if (!host)
    return Promise.reject(
      new Error(
        `no host named ${JSON.stringify(hostName)} (known: ${ctx.config.hosts.map((h) => h.name).join(', ') || 'none'})`,
      ),
    );
  const image = ctx.config.images[imageName];
  if (!image)
    return Promise.reject(
      new Error(
        `no image named ${JSON.stringify(imageName)} (known: ${Object.keys(ctx.config.images).join(', ') || 'none'})`,
      ),
    );
  const recipe = options.recipe ?? launchRecipe();
  const name = bakedVolumeName(image.sha256, recipe);
  const key = BakeRegistry.key(host.name, name);
  let flight = ctx.bakes.flights.get(key);
  if (!flight) {
    flight = runBake(ctx, host, imageName, image, recipe, name, options)
      .then(
        (r) => {
          ctx.bakes.failures.delete(key);
          return r;
        },
        (err: unknown) => {
          ctx.bakes.failures.set(key, messageOf(err));
          throw err;
        },
      )
      .finally(() => ctx.bakes.flights.delete(key));
    ctx.bakes.flights.set(key, flight);
  }
  return flight;
}

async function runBake(
  ctx: ProviderContext,
  host: ResolvedKVMHost,
  imageName: string,
  image: { url: string; sha256: string; format: 'qcow2' | 'raw' },
  recipe: BakeRecipe,
  name: string,
  options: BakeOptions,
): Promise<BakeResult> {
  const started = ctx.now();
  const api = await ctx.apiFor(host.name);
  const pool = host.pool;
  let step: BakeStep = 'image';
  const emit = (event: Omit<BakeEvent, 'step'>): void => options.onStep?.({ step, ...event });
  const begin = (next: BakeStep): void => {
    step = next;
    emit({ phase: 'start' });
  };
  const finish = (message: string): void => emit({ phase: 'done', message });
  const check = (): void => {
    if (options.signal?.aborted)
      throw options.signal.reason instanceof Error ? options.signal.reason : new Error('the bake was cancelled');
  };
  const result = (volume: VolumeInfo, created: boolean): BakeResult => ({
    host: host.name,
    image: imageName,
    volume,
    created,
    recipeHash: recipeHash(recipe),
    ms: ctx.now() - started,
  });

  const existing = await api.getVolume(pool, name);
  if (existing) return result(existing, false);

  const scratch = bakingNames(image.sha256, recipe);
  const made: Array<{ what: string; undo: () => Promise<void> }> = [];
  const removeVolume = (volume: string) => ({
    what: `volume ${volume} in pool ${pool}`,
    undo: () => ctx.queues.run(host.name, () => api.deleteVolume(pool, volume)),
  });
  try {
    await clearLeftovers(ctx, host, api, scratch);
    const base = await ensureBase(ctx, {
      host,
      api,
      image,
      ...(options.imageTransfer ? { transfer: options.imageTransfer } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      steps: {
        begin,
        progress: (done, total) => emit({ phase: 'progress', done, ...(total !== undefined ? { total } : {}) }),
        finish,
        check,
      },
    });
    check();

    begin('seed');
    const createdAt = new Date(ctx.now()).toISOString();
    const userData = buildBakeUserData(recipe);
    const seedIso = buildNoCloudSeed({
      userData,
      metaData: buildMetaData(scratch.domain, 'egress-bake'),
      vendorData: buildVendorData(ctx.config.vendorData),
    });
    await ctx.queues.run(host.name, async () => {
      await api.createVolume(
        pool,
        buildOverlayVolumeXml({
          name: scratch.overlay,
          capacityBytes: base.volume.capacityBytes,
          backingPath: base.volume.path,
          backingFormat: image.format,
        }),
      );
      made.push(removeVolume(scratch.overlay));
      await api.createVolume(pool, buildSeedVolumeXml(scratch.seed, seedIso.length));
      made.push(removeVolume(scratch.seed));
      await api.uploadVolume(pool, scratch.seed, Readable.from([seedIso]), {
        length: seedIso.length,
        ...(options.signal ? { signal: options.signal } : {}),
      });
    });
    finish(`${scratch.overlay} on ${base.volume.name}; packages ${recipe.packages.join(', ')}`);
    check();

    begin('install');
    const machine = ctx.config.defaults.machineType
      ? ctx.config.machineTypes[ctx.config.defaults.machineType]
      : undefined;
    await api.defineDomain(
      buildDomainXml({
        name: scratch.domain,
        uuid: instanceUuid(scratch.domain),
        title: `egress-desk: baking ${imageName} (${recipe.packages.join(', ')})`,
        vcpus: machine?.vcpus ?? 1,
        memoryMiB: Math.max(machine?.memoryMiB ?? 512, 512),
        domainType: await resolveDomainType(host.domainType, api),
        pool,
        rootVolume: scratch.overlay,
        seedVolume: scratch.seed,
        nic: host.bridge ? { bridge: host.bridge } : { network: host.network ?? 'default' },
        mac: instanceMac(scratch.domain, createdAt),
      }),
    );
    made.push({ what: `domain ${scratch.domain}`, undo: () => api.undefineDomain(scratch.domain) });
    await api.startDomain(scratch.domain);
    made.push({ what: `running domain ${scratch.domain}`, undo: () => destroyIfRunning(api, scratch.domain) });
    const said = await watchBake(
      api,
      scratch.domain,
      recipeHash(recipe),
      ctx.now() + (options.timeoutMs ?? DEFAULT_BAKE_TIMEOUT_MS),
      ctx.now,
      options.signal,
      (line) => emit({ phase: 'progress', message: line }),
    );
    finish(said);
    check();

    begin('copy');
    // libvirt copies the overlay into a standalone qcow2 (qemu-img convert reads through the backing chain).
    const volume = await ctx.queues.run(host.name, () =>
      api.copyVolume(
        pool,
        buildPlainVolumeXml({ name, capacityBytes: base.volume.capacityBytes, format: 'qcow2' }),
        pool,
        scratch.overlay,
      ),
    );
    finish(`${name}: ${volume.allocationBytes} bytes`);

    begin('clean');
    // From here on nothing fails the bake: the baked volume is complete, the scratch goes.
    const left = await undoAll(made.splice(0));
    finish(left.length ? `left behind: ${left.join('; ')}` : 'the baking domain and its scratch volumes are removed');
    return result(volume, true);
  } catch (err) {
    const left = await undoAll(made);
    throw new BakeError(host.name, step, err, left);
  }
}

/** Runs the undos newest first; returns what could not be undone. */
async function undoAll(made: Array<{ what: string; undo: () => Promise<void> }>): Promise<string[]> {
  const left: string[] = [];
  for (const m of [...made].reverse()) {
    try {
      await m.undo();
    } catch (err) {
      left.push(`${m.what}: ${messageOf(err)}`);
    }
  }
  return left;
}

async function destroyIfRunning(api: LibvirtApi, domain: string): Promise<void> {
  const d = await api.getDomain(domain);
  if (d && d.state !== 'shutoff') await api.destroyDomain(domain);
}

/**
 * A baking domain of this name running means another process bakes the same volume; one
 * shut off (and its volumes) is what a bake that died left: removed before starting again.
 */
async function clearLeftovers(
  ctx: ProviderContext,
  host: ResolvedKVMHost,
  api: LibvirtApi,
  scratch: ReturnType<typeof bakingNames>,
): Promise<void> {
  const d = await api.getDomain(scratch.domain);
  if (d && d.state !== 'shutoff')
    throw new Error(
      `the baking domain ${scratch.domain} is ${d.state} on ${host.name}: a bake of the same image is under way in another process`,
    );
  if (d) await api.undefineDomain(scratch.domain);
  for (const v of [scratch.overlay, scratch.seed]) {
    if (await api.getVolume(host.pool, v)) await ctx.queues.run(host.name, () => api.deleteVolume(host.pool, v));
  }
}

/**
 * Reads the baking domain's console until the guest says it is done ({@link BAKE_MARKER})
 * and the domain is shut off. Resolves with what it said; rejects when it said it failed,
 * powered off without saying, or did not finish by `deadline`. Progress: the console's
 * lines that name cloud-init or apt, as they come.
 */
async function watchBake(
  api: LibvirtApi,
  domain: string,
  hash: string,
  deadline: number,
  now: () => number,
  signal: AbortSignal | undefined,
  onLine: (line: string) => void,
): Promise<string> {
  let tail = '';
  let verdict: { ok: boolean; why: string } | undefined;
  let pending = '';
  const console = await api.openConsole(domain, { force: true });
  console.on('error', () => undefined);
  console.on('data', (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    tail = (tail + text).slice(-CONSOLE_TAIL);
    pending += text;
    const lines = pending.split(/\r?\n/);
    pending = lines.pop() ?? '';
    for (const raw of lines) {
      // eslint-disable-next-line no-control-regex -- the console carries terminal escapes
      const line = raw.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').trim();
      const m = BAKE_MARKER.exec(line);
      if (m && m[2] === hash) verdict = { ok: m[1] === 'OK', why: (m[3] ?? '').trim() };
      else if (/cloud-init|apt|Unpacking|Setting up/i.test(line)) onLine(line.slice(0, 200));
    }
  });
  try {
    for (;;) {
      if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('the bake was cancelled');
      const d = await api.getDomain(domain);
      if (!d || d.state === 'shutoff' || d.state === 'crashed') {
        if (verdict?.ok) return 'installed, cleaned (cloud-init clean) and powered off';
        if (verdict) throw new Error(`the guest says: ${verdict.why || 'failed'}`);
        throw new Error(
          `the baking guest stopped (${d?.state ?? 'gone'}) without saying it was done; its console ended with: ${JSON.stringify(tail.slice(-400))}`,
        );
      }
      if (now() >= deadline)
        throw new Error(
          `the baking guest was not done in time; its console ended with: ${JSON.stringify(tail.slice(-400))}`,
        );
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  } finally {
    console.destroy();
  }
}
