/**
 * The proxies area of the contract (`proxies:*`): the fleet listed, inspected and placed;
 * launch, start, stop and delete as tasks, each reporting the proxy as it is after (the
 * fleet watcher's `proxy:changed`); the URL with its credentials, on request only.
 */
import { buildClientSettings } from '../../../shared/client-settings.js';
import { clientProxies } from './exports.js';
import type { AreaService, ChannelInput, ChannelOutput } from '../../../shared/ipc.js';
import type { ProxySpec } from '../../../shared/proxy.js';
import { WATCH_LEASE_MS } from '../../../shared/stats.js';
import { CredentialsInKeyringError } from '../credentials/keyring-credentials-store.js';
import type { FleetListing } from '../provider/kvm/fleet.js';
import type { TaskService } from '../tasks/task-service.js';
import type { FleetAssembly } from './fleet-assembly.js';
import type { Live } from './fleet-lifecycle.js';
import { seedView } from './seed-view.js';
import { messageOf } from '../../../shared/errors.js';
import type { ProxyEvent } from '../../../shared/proxy-changed.js';

/** The `proxy:changed` event after a start, stop or delete task that still finds the proxy listed. */
const DID = { start: 'START', stop: 'STOP', delete: 'DELETE' } as const satisfies Record<string, ProxyEvent>;

export class ProxiesArea implements AreaService<'proxies'> {
  constructor(
    private readonly open: () => Promise<Live>,
    private readonly tasks: TaskService,
    /** Told of each launch that succeeded (the automatic bake, bake-task.ts); its failure is ignored. */
    private readonly afterLaunch?: (
      backend: FleetAssembly,
      launched: { proxy: string; host: string; image: string; base?: { baked: boolean } },
    ) => Promise<unknown>,
  ) {}

  async list(): Promise<FleetListing> {
    const { backend, watch } = await this.open();
    const listing = await backend.provider.list();
    watch.remember(listing);
    return listing;
  }

  async inspect(input: ChannelInput<'proxies:inspect'>): Promise<ChannelOutput<'proxies:inspect'>> {
    const { backend } = await this.open();
    const inspection = await backend.provider.inspect(input.name);
    // Credentials this front end cannot decrypt (the desktop app's keyring) only change which seed variant is shown.
    const stored = await backend.credentials
      .get(input.name)
      .catch((err: unknown) => (err instanceof CredentialsInKeyringError ? undefined : Promise.reject(err)));
    const seed = seedView(inspection.metadata, backend.config, stored);
    return { ...inspection, problems: { ...inspection.problems } as Record<string, string>, ...(seed ? { seed } : {}) };
  }

  /** Where a launch would go now, and why; changes nothing. */
  async place(input: ChannelInput<'proxies:place'>): Promise<ChannelOutput<'proxies:place'>> {
    const { backend } = await this.open();
    const connected = new Set(
      backend.hosts
        .statuses()
        .filter((h) => h.state === 'connected')
        .map((h) => h.name),
    );
    return backend.provider.placement({
      ...(input.host !== undefined ? { host: input.host } : {}),
      ...(input.machineType !== undefined ? { machineType: input.machineType } : {}),
      connected,
    });
  }

  /** Launches as a task whose steps are the provider's (validate … proxy). */
  async launch(spec: ProxySpec): Promise<{ taskId: string }> {
    const { backend, watch } = await this.open();
    const taskId = this.tasks.run(
      `Launch ${spec.name}`,
      async (ctx) => {
        const result = await backend.provider.launch(spec, {
          signal: ctx.signal,
          wait: true,
          onStep: (e) => {
            if (e.phase === 'start') ctx.step(e.step, e.message);
            else if (e.phase === 'progress' && e.done !== undefined) ctx.progress(e.done, e.total);
            else if (e.phase === 'done') ctx.stepDone(e.message);
          },
        });
        watch.changed(result.proxy, 'LAUNCHED');
        const image = spec.image ?? backend.config.defaults.image;
        if (this.afterLaunch && image)
          void this.afterLaunch(backend, {
            proxy: spec.name,
            host: result.proxy.host,
            image,
            ...(result.base ? { base: result.base } : {}),
          }).catch(() => undefined);
        // The URL holds the password: it stays out of the task (proxies:url gives it on request).
        return {
          proxy: result.proxy,
          created: result.created,
          placement: result.placement,
          address: result.address,
          timings: result.timings,
        };
      },
      { kind: 'proxies:launch', target: spec.name },
    );
    return { taskId };
  }

  /**
   * Several proxies as one task (the CLI's --count runs the same provider.launchMany): a row
   * per proxy as it starts, moves through its steps, and ends. One failure keeps the
   * others; a cancel stops the launches not yet finished (each rolls back alone) and keeps
   * the finished ones. The task fails when any did, naming them.
   */
  async launchMany(input: ChannelInput<'proxies:launchMany'>): Promise<{ taskId: string }> {
    const { backend, watch } = await this.open();
    const names = input.specs.map((s) => s.name);
    const taskId = this.tasks.run(
      `Launch ${names.length} proxies (${names[0]}${names.length > 1 ? ` … ${names.at(-1)}` : ''})`,
      async (ctx) => {
        for (const n of names) ctx.row(n, 'running', 'waiting');
        const outcomes = await backend.provider.launchMany(input.specs, input.strategy, {
          signal: ctx.signal,
          wait: true,
          onProxy: (n, e) => {
            if (e.phase === 'start') ctx.row(n, 'running', 'starting');
            else if (e.phase === 'step') ctx.row(n, 'running', e.step);
            else if (e.phase === 'done') ctx.row(n, 'done', 'ready');
            else ctx.row(n, 'failed', e.message);
          },
        });
        for (const o of outcomes) {
          if (o.ok) watch.changed(o.result.proxy, 'LAUNCHED');
          else ctx.row(o.name, 'failed', o.error.message);
        }
        const failed = outcomes.filter((o) => !o.ok);
        if (failed.length && !ctx.signal.aborted) {
          throw new Error(
            `${outcomes.length - failed.length} of ${outcomes.length} launched (kept); failed: ${failed.map((f) => `${f.name} (${f.ok ? '' : f.error.message})`).join('; ')}`,
          );
        }
        return {
          outcomes: outcomes.map((o) => ({
            name: o.name,
            ...(o.host !== undefined ? { host: o.host } : {}),
            ok: o.ok,
          })),
        };
      },
      { kind: 'proxies:launchMany', target: names.join(', ').slice(0, 200) },
    );
    return { taskId };
  }

  start(input: ChannelInput<'proxies:start'>): Promise<{ taskId: string }> {
    return this.proxyTask('start', `Start ${input.name}`, input.name, (b) => b.provider.start(input.name));
  }

  stop(input: ChannelInput<'proxies:stop'>): Promise<{ taskId: string }> {
    return this.proxyTask('stop', `Stop ${input.name}`, input.name, (b) =>
      b.provider.stop(input.name, input.force ? { force: true } : {}),
    );
  }

  delete(input: ChannelInput<'proxies:delete'>): Promise<{ taskId: string }> {
    return this.proxyTask('delete', `Delete ${input.name}`, input.name, (b) =>
      b.provider.delete(input.name, input.force ? { force: true } : {}),
    );
  }

  /**
   * Replaces as one task, the proxies one at a time: for each, the launch's steps for the
   * new one, then retire (the old one deleted) and finish. A failure or a cancel removes
   * that one's new proxy, keeps its old one, and leaves the rest untouched.
   */
  async replace(input: ChannelInput<'proxies:replace'>): Promise<{ taskId: string }> {
    const { backend, watch } = await this.open();
    const { names } = input;
    const taskId = this.tasks.run(
      names.length === 1 ? `Replace ${names[0]}` : `Replace ${names.length} proxies`,
      async (ctx) => {
        const done: Array<{ name: string; host: string; domain: string; replaced: { host: string; domain: string } }> =
          [];
        for (const name of names) {
          const prefix = names.length === 1 ? '' : `${name}: `;
          const result = await backend.provider
            .replace(name, {
              signal: ctx.signal,
              ...(input.host !== undefined ? { host: input.host } : {}),
              ...(input.force ? { force: true } : {}),
              onStep: (e) => {
                if (e.phase === 'start') ctx.step(`${prefix}${e.step}`, e.message);
                else if (e.phase === 'progress' && 'done' in e && e.done !== undefined) ctx.progress(e.done, e.total);
                else if (e.phase === 'done') ctx.stepDone(e.message);
              },
            })
            .catch((err: unknown) => {
              const rest = names.slice(names.indexOf(name) + 1);
              const before = done.length ? `replaced ${done.map((d) => d.name).join(', ')}; ` : '';
              throw new Error(
                `${before}${name} not replaced, it is as it was: ${messageOf(err)}${rest.length ? `; not attempted: ${rest.join(', ')}` : ''}`,
                { cause: err },
              );
            });
          watch.deleted(name, result.old.host, result.old.domain);
          watch.changed(result.proxy, 'REPLACED');
          // The URL holds the password: it stays out of the task (proxies:url gives it on request).
          done.push({
            name,
            host: result.proxy.host,
            domain: result.proxy.id,
            replaced: { host: result.old.host, domain: result.old.domain },
          });
        }
        return { replaced: done };
      },
      { kind: 'proxies:replace', target: names.join(', ').slice(0, 200) },
    );
    return { taskId };
  }

  /** Edits labels in place (a quick metadata write, not a task); the row follows as proxy:changed. */
  async label(input: ChannelInput<'proxies:label'>): Promise<ChannelOutput<'proxies:label'>> {
    const { backend, watch } = await this.open();
    const result = await backend.provider.editLabels(input.name, { set: input.set ?? {}, remove: input.remove ?? [] });
    const now = await backend.provider.get(input.name).catch(() => undefined);
    if (now && result.changed) watch.changed(now, 'LABELLED');
    return result;
  }

  /** The proxy's URL with its credentials: a secret, returned only here. */
  async clientSettings(
    input: ChannelInput<'proxies:clientSettings'>,
  ): Promise<ChannelOutput<'proxies:clientSettings'>> {
    const { backend } = await this.open();
    const listing = await backend.provider.list();
    const chosen = await clientProxies(
      listing.proxies,
      input.names,
      input.withCredentials ? (n) => backend.credentials.get(n) : undefined,
    );
    return buildClientSettings(input.format, chosen);
  }

  async url(input: ChannelInput<'proxies:url'>): Promise<{ url: string | null }> {
    const { backend } = await this.open();
    return { url: (await backend.provider.proxyUrl(input.name)) ?? null };
  }

  /**
   * Traffic and CPU per proxy as last sampled; `watch` keeps the 5 s cadence for the next
   * 30 s; `historyOf` adds that proxy's last hour, latency from the health probes included.
   */
  async stats(input: ChannelInput<'proxies:stats'>): Promise<ChannelOutput<'proxies:stats'>> {
    const { stats, health, statsNewsAt } = await this.open();
    if (input.watch) stats.renew(WATCH_LEASE_MS);
    const { historyOf, since } = input;
    // A renewal from a window that has the last sample sent (the latest, or one the samples
    // since only repeat: a stopped fleet's; the last sent is never newer than the latest):
    // 1,000 rows it would discard are not validated and serialised for it.
    if (since !== undefined && !input.history && !input.sparkPoints && !historyOf) {
      const latest = stats.snapshot();
      return statsNewsAt() <= since ? { ...latest, proxies: [] } : latest;
    }
    const { historyPoints, sparkPoints } = input;
    const figures = stats.snapshot({
      history: input.history === true,
      ...(historyPoints ? { historyPoints } : {}),
      ...(sparkPoints ? { sparkPoints } : {}),
      ...(historyOf ? { historyOf } : {}),
    });
    if (!historyOf) return figures;
    const latency = health.latencyHistory(historyOf.host, historyOf.domain);
    return {
      ...figures,
      proxies: figures.proxies.map((p) =>
        p.host === historyOf.host && p.domain === historyOf.domain ? { ...p, latency } : p,
      ),
    };
  }

  /** Health through each proxy as last probed. */
  async health(): Promise<ChannelOutput<'proxies:health'>> {
    return (await this.open()).health.snapshot();
  }

  private async proxyTask(
    verb: 'start' | 'stop' | 'delete',
    title: string,
    name: string,
    fn: (b: FleetAssembly) => Promise<object>,
  ): Promise<{ taskId: string }> {
    const { backend, watch } = await this.open();
    const taskId = this.tasks.run(
      title,
      async (ctx) => {
        ctx.step(verb);
        const result = await fn(backend);
        ctx.stepDone();
        const now = await backend.provider.get(name).catch(() => undefined);
        if (now) watch.changed(now, DID[verb]);
        else if (verb === 'delete')
          watch.deleted(name, 'host' in result && typeof result.host === 'string' ? result.host : undefined);
        return result;
      },
      // Halfway through, none of these can be undone: a cancel would only leave a muddle.
      { kind: `proxies:${verb}`, target: name, cancellable: false },
    );
    return { taskId };
  }
}
