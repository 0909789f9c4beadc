/**
 * The transactional launch: validate → place → image → upload → volumes → seed → define →
 * boot, then (when asked to wait) address → proxy. Every object created is recorded with
 * its undo; a failure at any step runs the undos of exactly those objects, newest first,
 * and the error names the step. The base volume is the exception by design: once fully
 * uploaded it is a shared cache of the host, kept like the local image cache.
 *
 * The undos and the rollback are launch-rollback.ts; finding a proxy of the name that
 * exists already (here or launched by another process) is launch-existing.ts.
 */
import { Readable } from 'node:stream';
import type { ResolvedKVMHost } from '../../../../../shared/config.js';
import { type ProxySpec, ProxySpecSchema } from '../../../../../shared/proxy.js';
import { formatProxyUrl } from '../../../../../shared/proxy-url.js';
import { isAlreadyExists } from '../../../../libvirt/index.js';
import { type ProviderContext, type ProxyRecord, toRecord } from '../context.js';
import { chooseBase, launchRecipe } from '../images/bake.js';
import { ensureBase } from '../images/base-ensure.js';
import { resolveDomainType } from '../domain-type.js';
import type { ImageTransfer } from '../images/host-fetch-plan.js';
import { AlreadyExistsError, LaunchError, LaunchTimeoutError, type LaunchStep, PlacementError } from '../errors.js';
import { type ExistingDomain, NameClaimedError, findExisting, identicalProxy } from './launch-existing.js';
import { type Undo, rollback } from './launch-rollback.js';
import type { GuestAddress, LibvirtApi } from '../libvirt-api.js';
import type { InstanceMetadata } from '../xml/metadata.js';
import { instanceId, instanceIds, instanceMac, replacementId } from '../names.js';
import { place } from './placement.js';
import { waitForProxy } from '../readiness.js';
import { type ResolvedSpec, generateCredentials, renderProxy, resolveSpec } from '../render.js';
import { GIB } from '../xml/volume-xml.js';

export { NameClaimedError } from './launch-existing.js';
export { ROLLBACK_RECONNECT_MS } from './launch-rollback.js';

/** Progress of a launch: a step starts, reports bytes, or is done (with what it found). */
export interface LaunchEvent {
  step: LaunchStep;
  phase: 'start' | 'progress' | 'done';
  message?: string;
  done?: number;
  total?: number;
}

export interface LaunchOptions {
  onStep?: ((event: LaunchEvent) => void) | undefined;
  signal?: AbortSignal;
  /** Wait until the proxy port answers (steps address and proxy). */
  wait?: boolean;
  /** Bound on the whole launch when waiting (default 10 min: a first boot under TCG is slow). */
  timeoutMs?: number;
  /** On timeout, remove what was created instead of leaving it for inspection. */
  rollbackOnTimeout?: boolean;
  /** How the base image reaches the host, overriding the app's per-host setting (default auto). */
  imageTransfer?: ImageTransfer;
  /** Use the plain base even when a baked one is on the host (the bench's first launch, a test). */
  plainBase?: boolean;
  /**
   * This launch replaces the proxy's domain named here (replace.ts): the new domain takes
   * the name's other instance id and records `replaces` until the old one is deleted; the
   * old one's presence is expected, not a conflict.
   */
  replacing?: { domain: string; host: string };
}

/** Which base volume a launch backed its overlay onto, and why (the launch plan says it). */
export interface UsedBase {
  volume: string;
  /** True for a baked base (bake.ts): nothing to install at first boot. */
  baked: boolean;
  /** In words: baked, or plain and why (not baked yet, the last bake failed and why). */
  note: string;
}

export interface LaunchResult {
  proxy: ProxyRecord;
  /** False when an identical proxy already existed and was returned as it is. */
  created: boolean;
  /** Why this host (placement). */
  placement: string;
  /** Set when waited for: the address the proxy answered on, and its URL (with credentials). */
  address?: string;
  url?: string;
  /** Milliseconds each step took. */
  timings: Partial<Record<LaunchStep, number>>;
  /** The base the overlay backs onto (absent when an identical proxy already existed). */
  base?: UsedBase;
}

export const DEFAULT_LAUNCH_TIMEOUT_MS = 10 * 60_000;

/** How long a launch that lost the name to another process waits for that process's domain. */
const CLAIM_WAIT_MS = 60_000;

/** What the creating steps leave for the waiting ones. */
interface Created {
  resolved: ResolvedSpec;
  host: ResolvedKVMHost;
  api: LibvirtApi;
  reason: string;
  metadata: InstanceMetadata;
}

export async function launch(
  ctx: ProviderContext,
  input: ProxySpec,
  options: LaunchOptions = {},
): Promise<LaunchResult> {
  const timings: LaunchResult['timings'] = {};
  const undos: Undo[] = [];
  let step: LaunchStep = 'validate';
  let stepStarted = ctx.now();
  const emit = (event: Omit<LaunchEvent, 'step'>): void => options.onStep?.({ step, ...event });
  const begin = (next: LaunchStep, message?: string): void => {
    timings[step] ??= ctx.now() - stepStarted;
    step = next;
    stepStarted = ctx.now();
    emit({ phase: 'start', ...(message ? { message } : {}) });
  };
  const finish = (message?: string): void => {
    timings[step] = ctx.now() - stepStarted;
    emit({ phase: 'done', ...(message ? { message } : {}) });
  };
  const started = ctx.now();
  const check = (): void => {
    if (options.signal?.aborted)
      throw options.signal.reason instanceof Error ? options.signal.reason : new Error('the launch was cancelled');
  };

  let id = '';
  let usedBase: UsedBase | undefined;
  let phase1: Created | { record: ProxyRecord; reason: string };
  try {
    emit({ phase: 'start' });
    const spec = ProxySpecSchema.parse(input);
    const replacing = options.replacing;
    id = replacing ? replacementId(spec.name, replacing.domain) : instanceId(spec.name);
    // A launch looks for the name under both its ids; a replacement only for its own (the old one is expected).
    const lookFor = replacing ? [id] : instanceIds(spec.name);
    // Launches of one name run one at a time in this process: the second sees the first's domain.
    phase1 = await ctx.names.run(spec.name, async () => {
      const explicit = spec.host === undefined ? undefined : ctx.config.hosts.find((h) => h.name === spec.host);
      if (spec.host !== undefined && !explicit)
        throw new PlacementError(
          `no host named ${JSON.stringify(spec.host)} (known: ${ctx.config.hosts.map((h) => h.name).join(', ')})`,
        );
      const someHost = explicit ?? ctx.config.hosts[0];
      if (!someHost) throw new PlacementError('the config has no hosts');
      // Resolving once against any host checks machine type and image before anything is asked of a host.
      resolveSpec(spec, ctx.config, someHost, () => ({ username: 'check', password: 'check' }));
      // An existing proxy of that name: itself when the spec is the same, else a conflict.
      const judge = (existing: ExistingDomain): { record: ProxyRecord; reason: string } => {
        const same = identicalProxy(ctx, spec, existing, replacing !== undefined);
        finish('an identical proxy exists');
        return same;
      };
      const existing = await findExisting(ctx, lookFor);
      if (existing) return judge(existing);
      finish();
      ctx.launching.add(id);
      try {
        return await createObjects(spec);
      } catch (err) {
        if (!(err instanceof NameClaimedError)) throw err;
        // Another process claimed the name first (its root volume exists): its domain follows within moments.
        ctx.launching.delete(id);
        const deadline = ctx.now() + CLAIM_WAIT_MS;
        for (;;) {
          const theirs = await findExisting(ctx, lookFor);
          if (theirs) return judge(theirs);
          if (ctx.now() >= deadline) throw err;
          await new Promise((r) => setTimeout(r, 250));
          check();
        }
      }
    });
  } catch (err) {
    ctx.launching.delete(id);
    const left = await rollback(undos);
    if (err instanceof AlreadyExistsError && left.length === 0) throw err;
    throw new LaunchError(step, err, left);
  }
  ctx.launching.delete(id);
  if ('record' in phase1) return { proxy: phase1.record, created: false, placement: phase1.reason, timings };
  const { resolved, host, api, reason, metadata } = phase1;
  const record = (addresses: GuestAddress[] = []): ProxyRecord =>
    toRecord(host.name, { name: id, state: 'running' }, metadata, addresses);
  if (!options.wait) {
    timings[step] ??= ctx.now() - stepStarted;
    return { proxy: record(), created: true, placement: reason, timings, ...(usedBase ? { base: usedBase } : {}) };
  }

  try {
    begin('address');
    const result = await waitForProxy({
      api,
      host,
      domain: id,
      mac: instanceMac(id, metadata.createdAt),
      port: resolved.port,
      probe: ctx.probe,
      deadline: started + (options.timeoutMs ?? DEFAULT_LAUNCH_TIMEOUT_MS),
      now: ctx.now,
      ...(ctx.readinessIntervalMs !== undefined ? { intervalMs: ctx.readinessIntervalMs } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      onAddress: (addresses) => {
        finish(addresses.map((a) => `${a.address} (${a.source})`).join(', '));
        begin('proxy');
      },
    });
    if (!result.ready) {
      step = result.step;
      const rolledBack = options.rollbackOnTimeout === true;
      const left = rolledBack ? await rollback(undos) : [];
      throw new LaunchTimeoutError(resolved.name, result.seen, rolledBack, step, left);
    }
    finish(`port ${resolved.port} answers on ${result.address}`);
    return {
      proxy: record(result.addresses),
      created: true,
      placement: reason,
      address: result.address,
      url: formatProxyUrl(result.address, resolved.port, resolved.credentials, resolved.kind),
      timings,
      ...(usedBase ? { base: usedBase } : {}),
    };
  } catch (err) {
    if (err instanceof LaunchTimeoutError) throw err;
    // A cancelled or failed wait removes the proxy: nothing half-made stays behind.
    const left = await rollback(undos);
    throw new LaunchError(step, err, left);
  }

  async function createObjects(spec: ProxySpec): Promise<Created> {
    begin('place');
    const resolvedFirst = resolveSpec(spec, ctx.config, ctx.config.hosts[0]!, () => ({
      username: 'check',
      password: 'check',
    }));
    const placement = await place({
      hosts: ctx.config.hosts,
      apiFor: ctx.apiFor,
      ...(spec.host !== undefined ? { host: spec.host } : {}),
      diskBytes: resolvedFirst.machineType.diskGiB * GIB,
      memoryBytes: resolvedFirst.machineType.memoryMiB * 1024 * 1024,
    });
    const { host, api } = placement;
    const resolved = resolveSpec(spec, ctx.config, host, ctx.generateCredentials ?? generateCredentials);
    const domainType = await resolveDomainType(host.domainType, api);
    finish(`${placement.reason}; domain type ${domainType}`);
    check();

    // A baked base of this image and recipe on the host: the first boot installs nothing,
    // and the plain base is not needed (it may have been pruned since the bake).
    begin('image');
    const choice = options.plainBase
      ? { plain: 'a plain base was asked for' }
      : await chooseBase(ctx, host, api, resolved.image.sha256, launchRecipe());
    let base: { name: string; path: string };
    if ('baked' in choice) {
      finish(`not needed: ${choice.baked.name} is on ${host.name}`);
      begin('upload');
      finish(`not needed: ${choice.baked.name} is on ${host.name}`);
      base = choice.baked;
    } else {
      base = (
        await ensureBase(ctx, {
          host,
          api,
          image: resolved.image,
          ...(options.imageTransfer ? { transfer: options.imageTransfer } : {}),
          ...(options.signal ? { signal: options.signal } : {}),
          // The image step has begun already (the baked base was looked for in it).
          steps: {
            begin: (next, message) => (next !== step ? begin(next, message) : undefined),
            progress: (done, total) => emit({ phase: 'progress', done, ...(total !== undefined ? { total } : {}) }),
            finish,
            check,
          },
        })
      ).volume;
    }
    check();

    begin('base');
    const used: UsedBase =
      'baked' in choice
        ? {
            volume: base.name,
            baked: true,
            note: 'baked: the proxy software and the guest agent are in the image; the first boot installs nothing',
          }
        : {
            volume: base.name,
            baked: false,
            note: `plain: ${choice.plain}; the first boot installs the proxy software and the guest agent`,
          };
    usedBase = used;
    finish(`${used.volume} (${used.note})`);
    check();

    const rendered = renderProxy(resolved, {
      domainType,
      basePath: base.path,
      ...('baked' in choice ? { baseVolume: base.name, baseFormat: 'qcow2' as const, baked: true } : {}),
      createdAt: new Date(ctx.now()),
      launchedBy: ctx.identity,
      ...(options.replacing ? { id, replaces: options.replacing } : {}),
    });
    const pool = host.pool;
    // Undos ask for the host's API when they run: after a lost connection that is a reopened one.
    const live = (): Promise<LibvirtApi> => ctx.apiFor(host.name);
    const removeVolume = (name: string): Undo => ({
      what: `volume ${name} in pool ${pool} on ${host.name}`,
      run: () => ctx.queues.run(host.name, async () => (await live()).deleteVolume(pool, name)),
    });

    begin('volumes');
    await ctx.queues.run(host.name, async () => {
      // The root volume is the launch's claim on the name, across processes: libvirt creates a volume name once.
      await api.createVolume(pool, rendered.overlayVolumeXml).catch((err: unknown) => {
        throw isAlreadyExists(err)
          ? new NameClaimedError(resolved.name, host.name, pool, rendered.volumes.root, err)
          : err;
      });
      undos.push(removeVolume(rendered.volumes.root));
    });
    finish(rendered.volumes.root);
    check();

    begin('seed');
    if (resolved.credentials) {
      const previous = await ctx.credentials.get(resolved.name);
      await ctx.credentials.set(resolved.name, resolved.credentials);
      undos.push({
        what: `credentials of ${resolved.name}`,
        run: () => (previous ? ctx.credentials.set(resolved.name, previous) : ctx.credentials.delete(resolved.name)),
      });
    }
    await ctx.queues.run(host.name, async () => {
      await api.createVolume(pool, rendered.seedVolumeXml);
      undos.push(removeVolume(rendered.volumes.seed));
      await api.uploadVolume(pool, rendered.volumes.seed, Readable.from([rendered.seedIso]), {
        length: rendered.seedIso.length,
        ...(options.signal ? { signal: options.signal } : {}),
      });
    });
    finish(rendered.volumes.seed);
    check();

    begin('define');
    await api.defineDomain(rendered.domainXml);
    undos.push({
      what: `domain ${rendered.id} on ${host.name}`,
      run: async () => (await live()).undefineDomain(rendered.id),
    });
    finish(rendered.id);
    check();

    begin('boot');
    await api.startDomain(rendered.id);
    undos.push({
      what: `running domain ${rendered.id} on ${host.name}`,
      run: async () => (await live()).destroyDomain(rendered.id),
    });
    finish();
    return { resolved, host, api, reason: placement.reason, metadata: rendered.metadata };
  }
}
