/**
 * The IPC contract: every channel between the renderer and the backend, with zod schemas
 * for its input and output. Main (the router), preload (the bridge) and the renderer all
 * derive from this one object; no channel name is written anywhere else.
 *
 * Channels are named `area:method`; the bridge exposes them as `window.egress.area.method()`.
 */
import { gatewayChannels, gatewayEvents } from './gateway-channels.js';
import { channel } from './ipc-channel.js';
import { ClientFormatSchema, ClientSettingsFileSchema } from './client-settings.js';
import { z } from 'zod';
import {
  HostImageTransferSchema,
  IMAGE_TRANSFERS,
  SettingsSetInputSchema,
  SettingsViewSchema,
} from './app-settings.js';
import { KVMHostSchema, ProviderConfigSchema } from './config.js';
import { ConfigDiffSchema } from './config-diff.js';
import {
  ConsoleCloseInputSchema,
  ConsoleCloseSchema,
  ConsoleClosedSchema,
  ConsoleDataSchema,
  ConsoleOpenInputSchema,
  ConsoleOpenSchema,
  ConsoleWriteInputSchema,
  ConsoleWriteSchema,
} from './console.js';
import {
  CatalogEditResultSchema,
  DefaultsSetSchema,
  ImageRemoveSchema,
  ImageSaveSchema,
  MachineTypeRemoveSchema,
  MachineTypeSaveSchema,
} from './catalog-edit.js';
import { HostLoadSchema, HostStatusSchema } from './hosts.js';
import { SshSettingsViewSchema } from './ssh-settings.js';
import { ImageLookupSchema, ImageVerifySchema, PublishedDigestSchema } from './image-lookup.js';
import {
  BasePruneInputSchema,
  BasePruneReportSchema,
  BasePruneResultSchema,
  ImageViewSchema,
  MachineTypeViewSchema,
} from './images-view.js';
import type { ErrorEnvelope } from './ipc-transport.js';
import { LAUNCH_MANY_MAX, StrategySchema } from './launch-many.js';
import { ProxyChangedSchema } from './proxy-changed.js';
import {
  FleetListingSchema,
  ProxyDeleteSchema,
  ProxyInspectionSchema,
  ProxyLabelResultSchema,
  ProxyLabelSchema,
  ProxyNameSchema,
  ProxyReplaceSchema,
  ProxyStopSchema,
} from './proxies.js';
import { ProxySpecSchema } from './proxy.js';
import { FleetStatsInputSchema, FleetStatsSchema } from './stats.js';
import { FleetHealthSchema } from './health.js';
import { TaskRefSchema, TaskSchema } from './tasks.js';

/** A problem of the config file: its field's path, what is wrong, and the line of the file it is on when known. */
const ConfigIssueSchema = z.object({
  path: z.string(),
  message: z.string(),
  line: z.number().int().positive().optional(),
});

/** The app config as the renderer sees it: the file, and either the config or why it is unusable. */
export const ConfigStateSchema = z.object({
  path: z.string(),
  /** True when this start wrote the default config (first start). */
  created: z.boolean(),
  config: ProviderConfigSchema.optional(),
  /** Problems that keep the file from loading; the file is left untouched. */
  issues: z.array(ConfigIssueSchema).optional(),
  error: z.string().optional(),
  /**
   * True when the file does not load now (it was broken by hand while the app ran) and the
   * app keeps working on the last config that did; the file is left as the person wrote it.
   */
  lastGood: z.boolean().optional(),
});
export type ConfigState = z.infer<typeof ConfigStateSchema>;

/**
 * `config:changed`: the config file as it is now, and who changed it: `app` for a write
 * through the contract (an import, a host or catalog edit), `file` for an edit made outside
 * the app (by hand, a script). Every change is reported, so the renderer's stores follow the
 * event instead of reloading after their own writes; only `file` is news to the person.
 */
export const ConfigChangedSchema = ConfigStateSchema.extend({ by: z.enum(['app', 'file']) });
export type ConfigChanged = z.infer<typeof ConfigChangedSchema>;

export const AppInfoSchema = z.object({
  name: z.string(),
  version: z.string(),
  /** `electron` (desktop window) or `serve` (a browser through egress-desk serve). */
  frontEnd: z.enum(['electron', 'serve']),
  dataDir: z.string(),
});
export type AppInfo = z.infer<typeof AppInfoSchema>;

export type { ChannelSpec } from './ipc-channel.js';

/** Config text accepted by import and preview: the config file's own limit (1 MiB). */
export const MAX_IMPORT_TEXT = 1024 * 1024;

export const EXPORT_FORMATS = ['operator', 'json', 'pac', 'proxy-list'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const ConfigExportInputSchema = z.strictObject({
  format: z.enum(EXPORT_FORMATS),
  /** proxy-list only: put each proxy's BasicAuth credentials in its URL (a secret: off by default). */
  withCredentials: z.boolean().optional(),
});

export const ConfigExportSchema = z.object({
  text: z.string(),
  /** A file name to offer when saving (`egress-desk.yaml`, `proxy.pac`…). */
  fileName: z.string(),
  mediaType: z.string(),
});

const ImportTextSchema = z
  .string()
  .min(1, 'the text is empty')
  .max(MAX_IMPORT_TEXT, `at most ${MAX_IMPORT_TEXT} characters`);
/** How to read the text: YAML (the default; a superset of JSON) or strict JSON. */
const ImportSyntaxSchema = z.enum(['yaml', 'json']).optional();

export const ConfigPreviewSchema = z.object({
  /** True when the text is a valid config (an import would be accepted). */
  ok: z.boolean(),
  /** Why it cannot be read (syntax), with the position in the message. */
  error: z.string().optional(),
  /** Every validation problem, by path. */
  issues: z.array(ConfigIssueSchema),
  /** Against the current config; absent when the text does not parse. */
  diff: ConfigDiffSchema.optional(),
});
export type ConfigPreview = z.infer<typeof ConfigPreviewSchema>;

const HostNameSchema = z.string().min(1).max(63);

/** What a host edit answers: the config file, and every host's status right after (they reconnect; host:status follows). */
export const HostsEditedSchema = z.object({ path: z.string(), hosts: z.array(HostStatusSchema) });

/** A passphrase as typed: never logged, never echoed back. */
const PassphraseSchema = z.string().min(1, 'enter the passphrase').max(1024);

/** Every channel. `proxies:url` (and `proxies:clientSettings` with `withCredentials`) are the channels whose answer holds a secret (the proxy's password); `gateway:url` and `gateway:clientSettings` with `withCredentials` hold a gateway client's. */
export const channels = {
  'app:info': channel(z.undefined(), AppInfoSchema),
  'config:get': channel(z.undefined(), ConfigStateSchema),
  'config:export': channel(ConfigExportInputSchema, ConfigExportSchema),
  'config:previewImport': channel(
    z.strictObject({ text: ImportTextSchema, syntax: ImportSyntaxSchema }),
    ConfigPreviewSchema,
  ),
  'config:import': channel(
    z.strictObject({
      text: ImportTextSchema,
      syntax: ImportSyntaxSchema,
      confirm: z.literal(true, { error: 'importing replaces the config: it needs confirm: true' }),
    }),
    z.object({ path: z.string(), diff: ConfigDiffSchema }),
  ),
  'hosts:list': channel(z.undefined(), z.array(HostStatusSchema)),
  'hosts:trust': channel(
    z.strictObject({
      host: z.string().min(1).max(63),
      fingerprint: z
        .string()
        .regex(/^SHA256:[A-Za-z0-9+/]{43}=?$/, 'must be a SHA256 fingerprint as ssh-keygen -l prints it'),
    }),
    HostStatusSchema,
  ),
  /** Adds a host (the config's rules apply: shared/host-form.ts checks a candidate the same way). */
  'hosts:add': channel(z.strictObject({ host: KVMHostSchema }), HostsEditedSchema),
  /** Replaces the host `name`; renaming is refused while proxies run on it (their metadata names it). */
  'hosts:update': channel(z.strictObject({ name: HostNameSchema, host: KVMHostSchema }), HostsEditedSchema),
  /** Removes the host from the config only: nothing on the host is touched; its proxies stop being managed. */
  'hosts:remove': channel(
    z.strictObject({
      name: HostNameSchema,
      confirm: z.literal(true, { error: 'removing a host needs confirm: true' }),
    }),
    HostsEditedSchema.extend({ removed: z.string(), proxies: z.number().nullable(), message: z.string() }),
  ),
  /** Answers a passphrase request (state auth-needed, needs passphrase); a wrong one leaves it auth-needed, saying so. */
  'hosts:unlock': channel(
    z.strictObject({ host: HostNameSchema, passphrase: PassphraseSchema, remember: z.boolean() }),
    HostStatusSchema,
  ),
  /** An SSH host's effective settings, as `egress-desk hosts ssh-config` prints them: read from ssh_config, nothing connects. */
  'hosts:sshSettings': channel(z.strictObject({ name: HostNameSchema }), SshSettingsViewSchema),
  /** How base images reach the host (the app's settings.json, as `egress-desk hosts image-transfer` reads it), and how the last one did. */
  'hosts:imageTransfer': channel(z.strictObject({ name: HostNameSchema }), HostImageTransferSchema),
  /** Sets it in settings.json (atomically; config.yaml is not touched): the next launch on the host follows it. */
  'hosts:setImageTransfer': channel(
    z.strictObject({ name: HostNameSchema, imageTransfer: z.enum(IMAGE_TRANSFERS) }),
    HostImageTransferSchema,
  ),
  /** The host's CPU, memory and pools now (the Hosts view asks every few seconds while it shows; CPU is over the time since the previous ask). */
  'hosts:load': channel(z.strictObject({ name: HostNameSchema }), HostLoadSchema),
  'machineTypes:list': channel(z.undefined(), z.array(MachineTypeViewSchema)),
  'images:list': channel(z.undefined(), z.array(ImageViewSchema)),
  'images:pull': channel(z.strictObject({ name: z.string().min(1).max(63) }), TaskRefSchema),
  /** Bakes an image on a host (a task: steps with progress, cancellable, everything removed on failure); later launches there use the baked base. */
  'images:bake': channel(z.strictObject({ name: z.string().min(1).max(63), host: HostNameSchema }), TaskRefSchema),
  /** Reads the publisher's checksum file beside the URL (or the one named): what it lists, for the person to confirm. */
  'images:lookup': channel(ImageLookupSchema, PublishedDigestSchema),
  /** Downloads an image listed by SHA-512 only, checks it and computes its SHA-256 (a task; a mismatch deletes the file). */
  'images:verifySha512': channel(ImageVerifySchema, TaskRefSchema),
  /** Base volumes on the hosts that no proxy uses (shown before anything is removed; nothing changes). */
  'images:unusedBases': channel(z.undefined(), BasePruneReportSchema),
  /** Removes the confirmed base volumes, each judged again first (one that came into use is kept, saying why). */
  'images:pruneBases': channel(BasePruneInputSchema, BasePruneResultSchema),
  /** Catalog edits: each goes through ConfigWrites.edit (validated, saved atomically, refused while tasks run). */
  'machineTypes:save': channel(MachineTypeSaveSchema, CatalogEditResultSchema),
  'machineTypes:remove': channel(MachineTypeRemoveSchema, CatalogEditResultSchema),
  'images:save': channel(ImageSaveSchema, CatalogEditResultSchema),
  'images:remove': channel(ImageRemoveSchema, CatalogEditResultSchema),
  'defaults:set': channel(DefaultsSetSchema, CatalogEditResultSchema),
  'proxies:list': channel(z.undefined(), FleetListingSchema),
  'proxies:inspect': channel(ProxyNameSchema, ProxyInspectionSchema),
  /** Where a launch would go now, and why (nothing is changed): the Launch dialog's "Automatic". */
  'proxies:place': channel(
    z.strictObject({ host: ProxySpecSchema.shape.host, machineType: ProxySpecSchema.shape.machineType }),
    z.object({ host: z.string(), reason: z.string() }),
  ),
  'proxies:launch': channel(ProxySpecSchema, TaskRefSchema),
  /** Several proxies in one task, placed by a strategy up front (shared/launch-many.ts); a row (step) per proxy; one failure keeps the others. */
  'proxies:launchMany': channel(
    z.strictObject({ specs: z.array(ProxySpecSchema).min(1).max(LAUNCH_MANY_MAX), strategy: StrategySchema }),
    TaskRefSchema,
  ),
  'proxies:start': channel(ProxyNameSchema, TaskRefSchema),
  'proxies:stop': channel(ProxyStopSchema, TaskRefSchema),
  /** Sets and removes labels in the proxy's metadata, without a restart; proxy:changed follows. */
  'proxies:label': channel(ProxyLabelSchema, ProxyLabelResultSchema),
  'proxies:delete': channel(ProxyDeleteSchema, TaskRefSchema),
  /** Replaces a proxy (a task: the new one ready, then the old one deleted; a failure keeps the old one). */
  'proxies:replace': channel(ProxyReplaceSchema, TaskRefSchema),
  /** The ready-to-copy URL, credentials included: a secret. `url` is null while the proxy has no address. */
  'proxies:url': channel(ProxyNameSchema, z.object({ url: z.string().nullable() })),
  /**
   * Client settings for one proxy or a selection (shared/client-settings.ts): the file of a
   * format, credentials only with `withCredentials` (then a secret, like `proxies:url`).
   */
  'proxies:clientSettings': channel(
    z.strictObject({
      names: z.array(ProxySpecSchema.shape.name).min(1).max(1000),
      format: ClientFormatSchema,
      withCredentials: z.boolean().optional(),
    }),
    ClientSettingsFileSchema,
  ),
  /** Traffic and CPU per proxy from the hosts' stats (shared/stats.ts); `watch` keeps the 5 s cadence for a while. */
  'proxies:stats': channel(FleetStatsInputSchema, FleetStatsSchema),
  /** Health through each proxy as last probed (shared/health.ts); probes run every 30 s. */
  'proxies:health': channel(z.undefined(), FleetHealthSchema),
  /** The app's own settings in force (settings.json in the data directory, defaults filled in): health probe, auto-bake, auto-replace. */
  'settings:get': channel(z.undefined(), SettingsViewSchema),
  /**
   * Changes the sections given (shared/app-settings.ts: a section replaces that section
   * whole), atomically; every other key of the file, `hosts` included, is kept. Refused
   * input names the field and writes nothing. The health monitor, auto-bake and
   * auto-replace read the file on each round or launch: no restart.
   */
  'settings:set': channel(SettingsSetInputSchema, SettingsViewSchema),
  ...gatewayChannels,
  'tasks:list': channel(z.undefined(), z.array(TaskSchema)),
  'tasks:cancel': channel(z.strictObject({ id: z.string().min(1).max(100) }), z.object({ cancelled: z.boolean() })),
  /** The proxy's serial console (shared/console.ts): a session whose output arrives as console:data events. */
  'console:open': channel(ConsoleOpenInputSchema, ConsoleOpenSchema),
  'console:write': channel(ConsoleWriteInputSchema, ConsoleWriteSchema),
  'console:close': channel(ConsoleCloseInputSchema, ConsoleCloseSchema),
} as const;

/**
 * `app:command`: what the desktop window's native menu asks the renderer to do. Launch
 * opens the Launch dialog; settings shows the Settings view; import brings a file's text to the Config view's import
 * preview (nothing is replaced before the person confirms); notify shows a message (an
 * export written to disk, a file that could not be read).
 */
export const AppCommandSchema = z.discriminatedUnion('command', [
  z.object({ command: z.literal('launch') }),
  /** File → Settings… (Ctrl/Cmd+,): shows the Settings view. */
  z.object({ command: z.literal('settings') }),
  z.object({
    command: z.literal('import'),
    fileName: z.string(),
    text: z.string().max(MAX_IMPORT_TEXT),
    syntax: z.enum(['yaml', 'json']),
  }),
  z.object({ command: z.literal('notify'), text: z.string(), kind: z.enum(['info', 'error']) }),
]);
export type AppCommand = z.infer<typeof AppCommandSchema>;

/** Every event the backend pushes, on the one events channel (EVENTS_CHANNEL), with its payload's schema. */
export const events = {
  'task:update': TaskSchema,
  'proxy:changed': ProxyChangedSchema,
  'host:status': HostStatusSchema,
  'proxy:stats': FleetStatsSchema,
  'proxy:health': FleetHealthSchema,
  'console:data': ConsoleDataSchema,
  'console:closed': ConsoleClosedSchema,
  'app:command': AppCommandSchema,
  /** The config file changed, by a write of the app or outside it (ConfigChangedSchema): what it is now, and whether the app took it. */
  'config:changed': ConfigChangedSchema,
  ...gatewayEvents,
} as const;

export type Events = typeof events;
export type EventName = keyof Events;
export type EventPayload<E extends EventName> = z.output<Events[E]>;
/** A listener of one event. */
export type EventListener<E extends EventName> = (payload: EventPayload<E>) => void;

export type Channels = typeof channels;
export type ChannelName = keyof Channels;
export type ChannelInput<C extends ChannelName> = z.input<Channels[C]['input']>;
export type ChannelOutput<C extends ChannelName> = z.output<Channels[C]['output']>;

export { type Envelope, type ErrorEnvelope, EVENTS_CHANNEL, INVOKE_CHANNEL } from './ipc-transport.js';

/** An error from the backend, rethrown in the renderer with its name and message intact. */
export class BridgeError extends Error {
  readonly issues: ErrorEnvelope['issues'];
  constructor(envelope: ErrorEnvelope) {
    super(envelope.message);
    this.name = envelope.name;
    this.issues = envelope.issues;
  }
}

/** Splits `area:method` into its two parts. */
export function splitChannel(name: ChannelName): [area: string, method: string] {
  const [area, method] = name.split(':') as [string, string];
  return [area, method];
}

type Area<C extends string> = C extends `${infer A}:${string}` ? A : never;
type MethodOf<C extends string, A extends string> = C extends `${A}:${infer M}` ? M : never;

/** `window.egress`: one method per channel, grouped by area. Inputs that are `undefined` take no argument. */
export type EgressBridge = {
  [A in Area<ChannelName>]: {
    [M in MethodOf<ChannelName, A>]: `${A}:${M}` extends infer C extends ChannelName
      ? ChannelInput<C> extends undefined
        ? () => Promise<ChannelOutput<C>>
        : (input: ChannelInput<C>) => Promise<ChannelOutput<C>>
      : never;
  };
};

/** The renderer's whole api: the channels' methods, plus `on(event, listener) → unsubscribe`. */
export type EgressApi = EgressBridge & {
  on<E extends EventName>(event: E, listener: EventListener<E>): () => void;
};

/** An area of the contract: the part of a channel's name before the colon (`hosts`, `proxies`…). */
export type AreaName = Area<ChannelName>;

/**
 * The backend side of one area: a method per channel, named as in the contract
 * (`hosts:trust` → `trust(input)`). A backend made of these exposes itself without a
 * hand-written channel map (electron/ipc/handlers.ts derives the router's handlers).
 */
export type AreaService<A extends AreaName> = {
  [M in MethodOf<ChannelName, A>]: `${A}:${M}` extends infer C extends ChannelName
    ? (input: ChannelInput<C>) => Promise<ChannelOutput<C>> | ChannelOutput<C>
    : never;
};

/** Every area's service: what answers the whole contract. */
export type ContractService = { [A in AreaName]: AreaService<A> };
