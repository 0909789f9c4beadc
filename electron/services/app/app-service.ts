/**
 * The app's backend, the same for the Electron window and `egress-desk serve`: the config
 * file, and — built from it on first use — the hosts, the provider, the image cache and
 * the credentials (a {@link FleetBackend}); long operations run as tasks. Events go to
 * every subscriber: task updates, host status changes, and proxy changes (libvirt
 * lifecycle events per connected host, plus a slow background re-listing).
 *
 * Importing a config rebuilds the backend from the new file.
 */
import { type ProviderConfig, type ResolvedKVMConfig, validateProviderConfig, withDefaults } from '../../../shared/config.js';
import { type ConfigDiff, diffConfigs } from '../../../shared/config-diff.js';
import { type CatalogEdit, applyCatalogEdit } from '../../../shared/catalog-edit.js';
import type { HostStatus } from '../../../shared/hosts.js';
import { IMAGE_VERIFY_KIND, type ImageVerified } from '../../../shared/image-lookup.js';
import type { ImageView, MachineTypeView } from '../../../shared/images-view.js';
import type { ChannelInput, ChannelOutput, ConfigPreview, EventName, EventPayload } from '../../../shared/ipc.js';
import type { ProxyChanged } from '../../../shared/proxies.js';
import type { ProxySpec } from '../../../shared/proxy.js';
import type { Task } from '../../../shared/tasks.js';
import type { ConfigService } from '../config/config-service.js';
import { findPublishedDigest, type PublishedDigest } from '../images/checksums.js';
import type { ConfigStore } from '../config/config-store.js';
import { ConfigInvalidError, ConfigReadError, parseConfigText, serializeConfig } from '../config/document.js';
import { formatProxyUrl } from '../credentials/credentials-store.js';
import { CredentialsInKeyringError } from '../credentials/keyring-credentials-store.js';
import { type ProxyRecord, toRecord } from '../provider/kvm/context.js';
import { messageOf } from '../provider/kvm/errors.js';
import type { FleetListing } from '../provider/kvm/fleet.js';
import type { DomainEvent, LibvirtApi } from '../provider/kvm/libvirt-api.js';
import { parseInstanceMetadata } from '../provider/kvm/metadata.js';
import { instanceId } from '../provider/kvm/names.js';
import { TaskService } from '../tasks/task-service.js';
import { ConsoleSessions } from './console-sessions.js';
import { buildPac, buildProxyList, readyProxies } from './exports.js';
import type { FleetBackend } from './fleet-backend.js';
import { imagePresence } from './image-presence.js';
import { seedView } from './seed-view.js';
import { addHost, proxiesOn, removalMessage, removeHost, updateHost } from '../hosts/host-edits.js';

/** Any event of the contract, as one subscriber sees it. */
export type AppEventListener = <E extends EventName>(event: E, payload: EventPayload<E>) => void;

export interface AppServiceOptions {
  store: ConfigStore;
  config: ConfigService;
  /** Builds the hosts, provider, images and credentials for a config. */
  openBackend: (config: ResolvedKVMConfig) => FleetBackend;
  tasks?: TaskService;
  now?: () => number;
  /** How often the fleet is listed again in the background, once it has been opened (default 60 s; 0 turns it off). */
  reconcileIntervalMs?: number;
}

/** The config cannot drive the provider: it does not load, or has no kvm block. */
export class ConfigUnusableError extends Error {
  override readonly name = 'ConfigUnusableError';
}

/** An import while tasks run: they use the current config's connections. */
export class ConfigBusyError extends Error {
  override readonly name = 'ConfigBusyError';
}

export class UnknownEntryError extends Error {
  override readonly name = 'UnknownEntryError';
}

interface Open {
  backend: FleetBackend;
  unsubscribe: Array<() => void>;
  lifecycle: Map<string, { api: LibvirtApi; off: Promise<(() => Promise<void>) | undefined> }>;
  /** `host/domain` → the record last seen (background re-listing compares against it). */
  seen: Map<string, ProxyRecord>;
  timer?: NodeJS.Timeout;
}

/**
 * What a rebuilt backend inherits from the one a config change closed: the proxies it
 * knew, so that their removal events still name their domain (a delete right after an
 * edit, an undefine seen only as a lifecycle event).
 */
type Inherited = Promise<Map<string, ProxyRecord> | undefined>;

const key = (host: string, domain: string) => `${host}/${domain}`;

export class AppService {
  readonly tasks: TaskService;
  /** Serial console sessions (console:open/write/close); closed with the backend. */
  readonly consoles: ConsoleSessions;
  private readonly listeners = new Set<AppEventListener>();
  private readonly now: () => number;
  private opening: Promise<Open> | undefined;
  /** Set by a config change that closed a backend; taken by the next one to open. */
  private inherited: Inherited | undefined;
  /** The last config write (import or edit): the next one waits for it. */
  private writes: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(private readonly options: AppServiceOptions) {
    this.now = options.now ?? Date.now;
    this.tasks = options.tasks ?? new TaskService({ now: this.now });
    this.tasks.setListener((task) => this.emit('task:update', task));
    this.consoles = new ConsoleSessions({ backend: async () => (await this.open()).backend, emit: (event, payload) => this.emit(event, payload) });
  }

  /** Every event of the contract; returns the unsubscribe. */
  subscribe(listener: AppEventListener): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  // ---- hosts, machine types, images ----

  async hostsList(): Promise<HostStatus[]> {
    const { backend } = await this.open();
    return Promise.all(backend.config.hosts.map((h) => this.hostWithInfo(backend, h.name)));
  }

  /** The host's effective SSH settings (ssh_config read afresh; nothing connects). */
  async hostsSshSettings(input: ChannelInput<'hosts:sshSettings'>): Promise<ChannelOutput<'hosts:sshSettings'>> {
    const { backend } = await this.open();
    this.knownHost(backend, input.name);
    return backend.hosts.sshSettings(input.name);
  }

  async hostsTrust(input: ChannelInput<'hosts:trust'>): Promise<HostStatus> {
    const { backend } = await this.open();
    this.knownHost(backend, input.host);
    await backend.hosts.trust(input.host, input.fingerprint);
    return this.hostWithInfo(backend, input.host);
  }

  async hostsAdd(input: ChannelInput<'hosts:add'>): Promise<ChannelOutput<'hosts:add'>> {
    const { path } = await this.editConfig((c) => addHost(c, input.host));
    return { path, hosts: await this.hostsReopened() };
  }

  async hostsUpdate(input: ChannelInput<'hosts:update'>): Promise<ChannelOutput<'hosts:update'>> {
    const renaming = input.host.name !== input.name;
    const proxies = renaming ? await this.proxiesOnHost(input.name) : undefined;
    const { path } = await this.editConfig((c) => updateHost(c, input.name, input.host, proxies));
    return { path, hosts: await this.hostsReopened() };
  }

  async hostsRemove(input: ChannelInput<'hosts:remove'>): Promise<ChannelOutput<'hosts:remove'>> {
    const proxies = await this.proxiesOnHost(input.name);
    const { path } = await this.editConfig((c) => removeHost(c, input.name));
    return { path, hosts: await this.hostsReopened(), removed: input.name, proxies: proxies ?? null, message: removalMessage(input.name, proxies) };
  }

  async hostsUnlock(input: ChannelInput<'hosts:unlock'>): Promise<HostStatus> {
    const { backend } = await this.open();
    this.knownHost(backend, input.host);
    await backend.hosts.unlock(input.host, input.passphrase, input.remember);
    // Still asking (a wrong passphrase): answer that as it is; fetching facts would only connect again and lose the reason.
    const status = backend.hosts.status(input.host);
    return status.state === 'connected' ? this.hostWithInfo(backend, input.host) : status;
  }

  async machineTypesList(): Promise<MachineTypeView[]> {
    const config = await this.kvmConfig();
    return Object.entries(config.machineTypes).map(([name, m]) => ({ name, ...m, isDefault: config.defaults.machineType === name }));
  }

  async imagesList(): Promise<ImageView[]> {
    const { backend } = await this.open();
    const entries = Object.entries(backend.config.images);
    const [cached, partials, presence] = await Promise.all([backend.images.list(), backend.images.partials(), imagePresence(backend, entries.map(([, image]) => image))]);
    return entries.map(([name, image], i): ImageView => {
      const view: ImageView = { name, url: image.url, sha256: image.sha256, format: image.format, isDefault: backend.config.defaults.image === name, cache: 'absent', hosts: presence[i]! };
      const hit = cached.find((c) => c.sha256 === image.sha256);
      const partial = partials.find((p) => p.sha256 === image.sha256);
      if (hit) return { ...view, cache: 'cached', sizeBytes: hit.size, lastUsed: hit.lastUsed.toISOString() };
      if (partial) return { ...view, cache: 'partial', sizeBytes: partial.size, ...(partial.total !== undefined ? { totalBytes: partial.total } : {}) };
      return view;
    });
  }

  async imagesPull(input: ChannelInput<'images:pull'>): Promise<{ taskId: string }> {
    const { backend } = await this.open();
    const image = backend.config.images[input.name];
    if (!image) throw new UnknownEntryError(`no image named ${JSON.stringify(input.name)} (known: ${Object.keys(backend.config.images).join(', ') || 'none'})`);
    const taskId = this.tasks.run(
      `Pull image ${input.name}`,
      async (ctx) => {
        ctx.step('download', image.url);
        const got = await backend.images.ensure(image, { signal: ctx.signal, onProgress: (p) => ctx.progress(p.bytes, p.total) });
        ctx.stepDone(`${got.size} bytes, sha256 verified`);
        return { name: input.name, sha256: got.sha256, sizeBytes: got.size, path: got.path };
      },
      { kind: 'images:pull', target: input.name },
    );
    return { taskId };
  }

  /** What the publisher's checksum file lists for an image (read, not signature-checked); nothing is stored. */
  async imagesLookup(input: ChannelInput<'images:lookup'>): Promise<PublishedDigest> {
    return findPublishedDigest(input.url, input.checksumsUrl !== undefined ? { checksumsUrl: input.checksumsUrl } : {});
  }

  /**
   * The one download an image listed by SHA-512 only needs before it can be added: checked
   * against the digest the person confirmed, its SHA-256 computed in the same pass (the
   * task's result; the form then saves the entry with it). A mismatch deletes the file.
   */
  async imagesVerifySha512(input: ChannelInput<'images:verifySha512'>): Promise<{ taskId: string }> {
    const { backend } = await this.open();
    const taskId = this.tasks.run(
      `Check image ${input.name}`,
      async (ctx): Promise<ImageVerified> => {
        ctx.step('download', input.url);
        const got = await backend.images.ensureBySha512({ url: input.url, sha512: input.sha512, format: input.format }, { signal: ctx.signal, onProgress: (p) => ctx.progress(p.bytes, p.total) });
        ctx.stepDone(`${got.size} bytes, sha512 verified; sha256 ${got.sha256}`);
        return { name: input.name, sha256: got.sha256, sizeBytes: got.size };
      },
      { kind: IMAGE_VERIFY_KIND, target: input.name },
    );
    return { taskId };
  }

  /** Adds, changes or renames a machine type (a rename moves the default with it). */
  machineTypesSave(input: ChannelInput<'machineTypes:save'>): Promise<{ path: string }> {
    return this.catalogEdit({ op: 'machineType:save', entry: input });
  }

  /** Removes a machine type; refused for the default and for the last one. */
  machineTypesRemove(input: ChannelInput<'machineTypes:remove'>): Promise<{ path: string }> {
    return this.catalogEdit({ op: 'machineType:remove', name: input.name });
  }

  /** Adds, changes or renames an image entry. */
  imagesSave(input: ChannelInput<'images:save'>): Promise<{ path: string }> {
    return this.catalogEdit({ op: 'image:save', entry: input });
  }

  /** Removes an image entry (refused for the default). The cached file stays: the cache is keyed by digest, not name. */
  imagesRemove(input: ChannelInput<'images:remove'>): Promise<{ path: string }> {
    return this.catalogEdit({ op: 'image:remove', name: input.name });
  }

  defaultsSet(input: ChannelInput<'defaults:set'>): Promise<{ path: string }> {
    return this.catalogEdit({ op: 'defaults:set', ...input });
  }

  /** One catalog edit through the shared check (the renderer's own) and the one write path. */
  private async catalogEdit(edit: CatalogEdit): Promise<{ path: string }> {
    const { path } = await this.editConfig((config) => applyCatalogEdit(config, edit));
    return { path };
  }

  // ---- proxies ----

  async proxiesList(): Promise<FleetListing> {
    const open = await this.open();
    const listing = await open.backend.provider.list();
    this.remember(open, listing);
    return listing;
  }

  async proxiesInspect(input: ChannelInput<'proxies:inspect'>): Promise<ChannelOutput<'proxies:inspect'>> {
    const { backend } = await this.open();
    const inspection = await backend.provider.inspect(input.name);
    // Credentials this front end cannot decrypt (the desktop app's keyring) only change which seed variant is shown.
    const stored = await backend.credentials.get(input.name).catch((err: unknown) => (err instanceof CredentialsInKeyringError ? undefined : Promise.reject(err)));
    const seed = seedView(inspection.metadata, backend.config, stored);
    return { ...inspection, problems: { ...inspection.problems } as Record<string, string>, ...(seed ? { seed } : {}) };
  }

  /** Where a launch would go now, and why; changes nothing. */
  async proxiesPlace(input: ChannelInput<'proxies:place'>): Promise<ChannelOutput<'proxies:place'>> {
    const { backend } = await this.open();
    const connected = new Set(backend.hosts.statuses().filter((h) => h.state === 'connected').map((h) => h.name));
    return backend.provider.placement({ ...(input.host !== undefined ? { host: input.host } : {}), ...(input.machineType !== undefined ? { machineType: input.machineType } : {}), connected });
  }

  /** Launches as a task whose steps are the provider's (validate … proxy). */
  async proxiesLaunch(spec: ProxySpec): Promise<{ taskId: string }> {
    const open = await this.open();
    const taskId = this.tasks.run(
      `Launch ${spec.name}`,
      async (ctx) => {
        const result = await open.backend.provider.launch(spec, {
          signal: ctx.signal,
          wait: true,
          onStep: (e) => {
            if (e.phase === 'start') ctx.step(e.step, e.message);
            else if (e.phase === 'progress' && e.done !== undefined) ctx.progress(e.done, e.total);
            else if (e.phase === 'done') ctx.stepDone(e.message);
          },
        });
        this.proxyChanged(open, result.proxy, 'LAUNCHED');
        // The URL holds the password: it stays out of the task (proxies:url gives it on request).
        return { proxy: result.proxy, created: result.created, placement: result.placement, address: result.address, timings: result.timings };
      },
      { kind: 'proxies:launch', target: spec.name },
    );
    return { taskId };
  }

  async proxiesStart(input: ChannelInput<'proxies:start'>): Promise<{ taskId: string }> {
    return this.proxyTask('start', `Start ${input.name}`, input.name, (b) => b.provider.start(input.name));
  }

  async proxiesStop(input: ChannelInput<'proxies:stop'>): Promise<{ taskId: string }> {
    return this.proxyTask('stop', `Stop ${input.name}`, input.name, (b) => b.provider.stop(input.name));
  }

  async proxiesDelete(input: ChannelInput<'proxies:delete'>): Promise<{ taskId: string }> {
    return this.proxyTask('delete', `Delete ${input.name}`, input.name, (b) => b.provider.delete(input.name));
  }

  /** The proxy's URL with its credentials: a secret, returned only here. */
  async proxiesUrl(input: ChannelInput<'proxies:url'>): Promise<{ url: string | null }> {
    const { backend } = await this.open();
    return { url: (await backend.provider.proxyUrl(input.name)) ?? null };
  }

  // ---- config ----

  async configExport(input: ChannelInput<'config:export'>): Promise<ChannelOutput<'config:export'>> {
    if (input.format === 'operator' || input.format === 'json') {
      const config = await this.providerConfig();
      return input.format === 'json'
        ? { text: serializeConfig(config, 'json'), fileName: 'egress-desk.json', mediaType: 'application/json' }
        : { text: serializeConfig(config, 'operator'), fileName: 'egress-desk.yaml', mediaType: 'application/yaml' };
    }
    const { backend } = await this.open();
    const ready = readyProxies((await backend.provider.list()).proxies);
    if (input.format === 'pac') return { text: buildPac(ready, new Date(this.now())), fileName: 'proxy.pac', mediaType: 'application/x-ns-proxy-autoconfig' };
    const credentials = new Map(
      input.withCredentials ? await Promise.all(ready.map(async (p) => [p.name, await backend.credentials.get(p.name)] as const)) : [],
    );
    return { text: buildProxyList(ready, (p) => formatProxyUrl(p.address, p.port, credentials.get(p.name))), fileName: 'proxies.txt', mediaType: 'text/plain' };
  }

  async configPreviewImport(input: ChannelInput<'config:previewImport'>): Promise<ConfigPreview> {
    let raw: unknown;
    try {
      raw = parseConfigText(input.text, input.syntax === 'json' ? 'import.json' : 'import.yaml');
    } catch (err) {
      if (err instanceof ConfigReadError) return { ok: false, error: err.message, issues: [] };
      throw err;
    }
    const result = validateProviderConfig(raw);
    const current = await this.options.store.load().catch(() => undefined);
    const diff = diffConfigs(current, raw);
    return result.ok ? { ok: true, issues: [], diff } : { ok: false, issues: result.issues, diff };
  }

  /** Validates and replaces the config file atomically; an invalid text is never saved. */
  configImport(input: ChannelInput<'config:import'>): Promise<{ path: string; diff: ConfigDiff }> {
    return this.oneWriteAtATime(() => this.importNow(input));
  }

  private async importNow(input: ChannelInput<'config:import'>): Promise<{ path: string; diff: ConfigDiff }> {
    const file = input.syntax === 'json' ? 'import.json' : 'import.yaml';
    const result = validateProviderConfig(parseConfigText(input.text, file));
    if (!result.ok) throw new ConfigInvalidError(file, result.issues);
    this.refuseWhileBusy('import');
    const current = await this.options.store.load().catch(() => undefined);
    await this.options.store.save(result.config);
    await this.reset();
    return { path: this.options.store.file, diff: diffConfigs(current, result.config) };
  }

  /**
   * Changes the config file through `mutate` (given a deep copy of the current config; it
   * returns the new one, or throws a typed error saying what is wrong). The result is
   * validated and saved atomically, then the backend is rebuilt from it, as after an
   * import; an invalid result is never saved. Refused while tasks run: they use the
   * current config's connections. The one write path for every in-app config edit
   * (hosts, machine types, images).
   */
  editConfig(mutate: (config: ProviderConfig) => ProviderConfig): Promise<{ path: string; diff: ConfigDiff; config: ProviderConfig }> {
    return this.oneWriteAtATime(() => this.editNow(mutate));
  }

  /**
   * Config writes run one after another: each reads the file the previous one wrote, so two
   * edits at the same moment (two browser tabs, a host edit during a catalog save) both land.
   */
  private oneWriteAtATime<T>(write: () => Promise<T>): Promise<T> {
    const run = this.writes.then(write, write);
    this.writes = run.catch(() => undefined);
    return run;
  }

  private async editNow(mutate: (config: ProviderConfig) => ProviderConfig): Promise<{ path: string; diff: ConfigDiff; config: ProviderConfig }> {
    const current = await this.providerConfig();
    const next = mutate(structuredClone(current));
    const result = validateProviderConfig(next);
    if (!result.ok) throw new ConfigInvalidError(this.options.store.file, result.issues);
    this.refuseWhileBusy('change the config');
    // In place: the person's comments and layout in the file survive an edit from the app.
    await this.options.store.update(result.config);
    await this.reset();
    return { path: this.options.store.file, diff: diffConfigs(current, result.config), config: result.config };
  }

  // ---- tasks ----

  tasksList(): Task[] {
    return this.tasks.list();
  }

  tasksCancel(input: ChannelInput<'tasks:cancel'>): { cancelled: boolean } {
    return { cancelled: this.tasks.cancel(input.id) };
  }

  /** Cancels running tasks, stops listening and closes every connection. */
  async close(): Promise<void> {
    this.closed = true;
    await this.tasks.close();
    await this.reset();
    this.listeners.clear();
  }

  // ---- internals ----

  private refuseWhileBusy(what: string): void {
    const running = this.tasks.list().filter((t) => t.state === 'queued' || t.state === 'running');
    if (running.length) throw new ConfigBusyError(`${running.length} task${running.length === 1 ? ' is' : 's are'} running (${running.map((t) => t.title).join(', ')}): wait for them or cancel them, then ${what}`);
  }

  private emit<E extends EventName>(event: E, payload: EventPayload<E>): void {
    for (const listener of this.listeners) {
      try {
        listener(event, payload);
      } catch {
        // One front end's failure must not starve the others.
      }
    }
  }

  private async providerConfig(): Promise<ProviderConfig> {
    const state = await this.options.config.state();
    if (state.config) return state.config;
    if (state.issues) throw new ConfigInvalidError(state.path, state.issues);
    throw new ConfigUnusableError(state.error ?? `${state.path} cannot be read`);
  }

  private async kvmConfig(): Promise<ResolvedKVMConfig> {
    const config = await this.providerConfig();
    if (config.type !== 'kvm' || !config.kvm) throw new ConfigUnusableError(`the config's provider type is ${config.type}: this app manages kvm (set type: kvm and a kvm block)`);
    return withDefaults(config.kvm);
  }

  private open(): Promise<Open> {
    if (this.closed) return Promise.reject(new Error('the app is shutting down'));
    if (!this.opening) {
      const inherited = this.inherited;
      this.inherited = undefined;
      this.opening = this.kvmConfig().then(async (config) => this.wire(this.options.openBackend(config), await inherited));
      // A config that cannot be used now may be fixed by the next call: do not keep the failure (nor lose the inheritance).
      this.opening.catch(() => {
        this.opening = undefined;
        this.inherited ??= inherited;
      });
    }
    return this.opening;
  }

  /** Wires a new backend's events; `inherited` is what the backend a config change closed had seen. */
  private wire(backend: FleetBackend, inherited?: Map<string, ProxyRecord>): Open {
    const open: Open = { backend, unsubscribe: [], lifecycle: new Map(), seen: new Map() };
    if (inherited) {
      // Hosts still in the config keep what was known of them (a removed host's proxies are
      // no longer this app's to follow); a listing then brings it up to date, reporting what
      // changed while no backend was watching, or on a host whose entry now reaches elsewhere.
      const hosts = new Set(backend.config.hosts.map((h) => h.name));
      for (const [k, p] of inherited) if (hosts.has(p.host)) open.seen.set(k, p);
      void this.relist(open);
    }
    open.unsubscribe.push(
      backend.hosts.onStatus((status) => {
        this.emit('host:status', status);
        if (status.state === 'connected') void this.watchLifecycle(open, status.name);
      }),
    );
    for (const status of backend.hosts.statuses()) if (status.state === 'connected') void this.watchLifecycle(open, status.name);
    const interval = this.options.reconcileIntervalMs ?? 60_000;
    if (interval > 0) {
      open.timer = setInterval(() => void this.relist(open), interval);
      open.timer.unref();
    }
    return open;
  }

  /** Subscribes to one host's lifecycle events (again when its connection, and so its API object, changed). */
  private async watchLifecycle(open: Open, host: string): Promise<void> {
    let api: LibvirtApi;
    try {
      api = await open.backend.apiFor(host);
    } catch {
      return; // its status says why
    }
    const current = open.lifecycle.get(host);
    if (current?.api === api) return;
    void current?.off.then((off) => off?.().catch(() => undefined));
    const off = api.onLifecycle((e) => void this.onLifecycle(open, host, api, e)).catch(() => undefined);
    open.lifecycle.set(host, { api, off });
  }

  private async onLifecycle(open: Open, host: string, api: LibvirtApi, event: DomainEvent): Promise<void> {
    const known = open.seen.get(key(host, event.domain));
    const domain = await api.getDomain(event.domain).catch(() => null);
    let metadata;
    try {
      metadata = domain ? parseInstanceMetadata(domain.xml) : undefined;
    } catch {
      metadata = undefined; // unreadable metadata: the listing reports it
    }
    if (!metadata && !known) return; // not one of ours
    if (domain && metadata) {
      // Every entry on a hypervisor sees its events: the proxy is reported under its own entry only (docs/provider.md).
      const where = open.backend.provider.reportingEntry(host, metadata.host);
      if (!where) return;
      const mine = where.host === host ? known : open.seen.get(key(where.host, event.domain));
      this.proxyChanged(open, toRecord(where.host, domain, metadata, mine?.addresses ?? [], where.unknownHost), event.event);
    } else {
      open.seen.delete(key(host, event.domain));
      this.emit('proxy:changed', { host, domain: event.domain, ...(known ? { name: known.name } : {}), event: event.event, removed: true });
    }
  }

  private proxyChanged(open: Open, proxy: ProxyRecord, event: string): void {
    open.seen.set(key(proxy.host, proxy.id), proxy);
    const payload: ProxyChanged = { host: proxy.host, domain: proxy.id, name: proxy.name, event, removed: false, proxy };
    this.emit('proxy:changed', payload);
  }

  /**
   * The background re-listing: reports what changed without a lifecycle event (another
   * client, a lost event). A proxy that an event changed while the listing was on its way
   * is left as the event put it: the event is newer than the listing.
   */
  private async relist(open: Open): Promise<void> {
    const before = new Map(open.seen);
    let listing: FleetListing;
    try {
      listing = await open.backend.provider.list();
    } catch {
      return;
    }
    const changedMeanwhile = (k: string) => open.seen.get(k) !== before.get(k);
    const reachable = new Set(listing.hosts.filter((h) => h.ok).map((h) => h.host));
    for (const proxy of listing.proxies) {
      const k = key(proxy.host, proxy.id);
      const old = before.get(k);
      const skip = changedMeanwhile(k);
      before.delete(k);
      if (skip) continue;
      if (!old || JSON.stringify(old) !== JSON.stringify(proxy)) this.proxyChanged(open, proxy, 'RECONCILED');
    }
    for (const [k, gone] of before) {
      if (!reachable.has(gone.host) || changedMeanwhile(k)) continue; // unknown, not gone; or an event said otherwise
      open.seen.delete(k);
      this.emit('proxy:changed', { host: gone.host, domain: gone.id, name: gone.name, event: 'RECONCILED', removed: true });
    }
  }

  private remember(open: Open, listing: FleetListing): void {
    const reachable = new Set(listing.hosts.filter((h) => h.ok).map((h) => h.host));
    for (const [k, p] of open.seen) if (reachable.has(p.host)) open.seen.delete(k);
    for (const p of listing.proxies) open.seen.set(key(p.host, p.id), p);
  }

  private proxyTask(verb: 'start' | 'stop' | 'delete', title: string, name: string, fn: (b: FleetBackend) => Promise<object>): Promise<{ taskId: string }> {
    return this.open().then((open) => {
      const taskId = this.tasks.run(
        title,
        async (ctx) => {
          ctx.step(verb);
          const result = await fn(open.backend);
          ctx.stepDone();
          const now = await open.backend.provider.get(name).catch(() => undefined);
          if (now) this.proxyChanged(open, now, verb.toUpperCase());
          else if (verb === 'delete') {
            // The delete says where the proxy was; its domain is named after it. Neither needs
            // the proxy to have been seen by this backend (a config edit rebuilds it).
            const host = 'host' in result && typeof result.host === 'string' ? result.host : undefined;
            const gone = [...open.seen.values()].find((p) => p.name === name && (host === undefined || p.host === host));
            const removed = { host: host ?? gone?.host ?? '', domain: gone?.id ?? instanceId(name) };
            open.seen.delete(key(removed.host, removed.domain));
            this.emit('proxy:changed', { ...removed, name, event: 'DELETED', removed: true });
          }
          return result;
        },
        // Halfway through, none of these can be undone: a cancel would only leave a muddle.
        { kind: `proxies:${verb}`, target: name, cancellable: false },
      );
      return { taskId };
    });
  }

  /** Proxies on one host (undefined: it cannot be listed, or is not in the config). */
  private async proxiesOnHost(name: string): Promise<number | undefined> {
    const { backend } = await this.open();
    this.knownHost(backend, name);
    return proxiesOn(await backend.provider.list(), name);
  }

  /** After a host edit: the new backend's statuses, each host connecting in the background (host:status follows). */
  private async hostsReopened(): Promise<HostStatus[]> {
    const { backend } = await this.open();
    for (const h of backend.config.hosts) void this.hostWithInfo(backend, h.name);
    return backend.hosts.statuses();
  }

  private knownHost(backend: FleetBackend, name: string): void {
    if (!backend.config.hosts.some((h) => h.name === name)) {
      throw new UnknownEntryError(`no host named ${JSON.stringify(name)} (known: ${backend.config.hosts.map((h) => h.name).join(', ')})`);
    }
  }

  private async hostWithInfo(backend: FleetBackend, name: string): Promise<HostStatus> {
    try {
      const info = await backend.hosts.info(name);
      return { ...backend.hosts.status(name), info };
    } catch (err) {
      const status = backend.hosts.status(name);
      // A failure after connecting (a call that failed) leaves the state "connected": report it.
      if (status.state === 'connected') return { ...status, state: 'error', message: messageOf(err) };
      return status;
    }
  }

  /** Drops the backend (connections, subscriptions, timer): the next call builds it from the file. */
  private async reset(): Promise<void> {
    this.consoles.closeAll(this.closed ? 'the app is closing' : 'the config changed and the connections were rebuilt: connect again');
    const opening = this.opening;
    this.opening = undefined;
    // Taken synchronously, so that a call racing this reset already builds on it.
    if (opening && !this.closed) this.inherited = opening.then((o) => o.seen, () => undefined);
    const open = await opening?.catch(() => undefined);
    if (!open) return;
    if (open.timer) clearInterval(open.timer);
    for (const off of open.unsubscribe) off();
    await Promise.all([...open.lifecycle.values()].map((l) => l.off.then((off) => off?.()).catch(() => undefined)));
    await open.backend.close();
  }
}
