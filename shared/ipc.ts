/**
 * The IPC contract: every channel between the renderer and the backend, with zod schemas
 * for its input and output. Main (the router), preload (the bridge) and the renderer all
 * derive from this one object; no channel name is written anywhere else.
 *
 * Channels are named `area:method`; the bridge exposes them as `window.egress.area.method()`.
 */
import { z } from 'zod';
import { ProviderConfigSchema } from './config.js';
import type { ErrorEnvelope } from './ipc-transport.js';

const ConfigIssueSchema = z.object({ path: z.string(), message: z.string() });

/** The app config as the renderer sees it: the file, and either the config or why it is unusable. */
export const ConfigStateSchema = z.object({
  path: z.string(),
  /** True when this start wrote the default config (first start). */
  created: z.boolean(),
  config: ProviderConfigSchema.optional(),
  /** Problems that keep the file from loading; the file is left untouched. */
  issues: z.array(ConfigIssueSchema).optional(),
  error: z.string().optional(),
});
export type ConfigState = z.infer<typeof ConfigStateSchema>;

export const AppInfoSchema = z.object({
  name: z.string(),
  version: z.string(),
  /** `electron` (desktop window) or `serve` (a browser through egress-desk serve). */
  frontEnd: z.enum(['electron', 'serve']),
  dataDir: z.string(),
});
export type AppInfo = z.infer<typeof AppInfoSchema>;

/** One channel: what it accepts and what it returns. */
export interface ChannelSpec<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  input: I;
  output: O;
}

function channel<I extends z.ZodType, O extends z.ZodType>(input: I, output: O): ChannelSpec<I, O> {
  return { input, output };
}

/** Every channel. */
export const channels = {
  'app:info': channel(z.undefined(), AppInfoSchema),
  'config:get': channel(z.undefined(), ConfigStateSchema),
} as const;

export type Channels = typeof channels;
export type ChannelName = keyof Channels;
export type ChannelInput<C extends ChannelName> = z.input<Channels[C]['input']>;
export type ChannelOutput<C extends ChannelName> = z.output<Channels[C]['output']>;

export { type Envelope, type ErrorEnvelope, INVOKE_CHANNEL } from './ipc-transport.js';

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
