/**
 * The router: channel → service. Every input is validated with the contract's schema
 * before a service sees it (the renderer is untrusted), every output is validated before
 * it leaves, and every failure becomes one error envelope. Electron-free: the Electron
 * shell, `egress-desk serve` and the tests all route through this.
 */
import type { z } from 'zod';
import { formatIssue } from '../../shared/config.js';
import { configErrorMap } from '../../shared/config-issues.js';
import {
  type ChannelInput,
  type ChannelName,
  type ChannelOutput,
  type Envelope,
  type ErrorEnvelope,
  type EventName,
  type EventPayload,
  channels,
} from '../../shared/ipc.js';

/** The service side of every channel. */
export type Handlers = { [C in ChannelName]: (input: ChannelInput<C>) => Promise<ChannelOutput<C>> | ChannelOutput<C> };

/** Input that does not match the contract: the service is never called. */
export class ValidationError extends Error {
  override readonly name = 'ValidationError';
  constructor(
    message: string,
    readonly issues: { path: string; message: string }[],
  ) {
    super(message);
  }
}

function zodIssues(error: z.ZodError): { path: string; message: string }[] {
  return error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message }));
}

/** Turns anything thrown into the envelope that crosses the bridge (never a stack trace). */
export function toErrorEnvelope(err: unknown): ErrorEnvelope {
  if (err instanceof Error) {
    const issues = (err as { issues?: unknown }).issues;
    const envelope: ErrorEnvelope = { name: err.name, message: err.message };
    if (Array.isArray(issues))
      envelope.issues = issues.filter(
        (i): i is { path: string; message: string } => typeof i?.path === 'string' && typeof i?.message === 'string',
      );
    return envelope;
  }
  return { name: 'Error', message: String(err) };
}

/** Receives every event of the contract (a front end forwards them to its window or sockets). */
export type EventSink = <E extends EventName>(event: E, payload: EventPayload<E>) => void;

export interface Router {
  /** Routes one call. Never throws: failures come back as `{ ok: false, error }`. */
  invoke(channel: unknown, input: unknown): Promise<Envelope>;
  /** The backend's events (absent for a router without a backend behind it, as in tests); returns the unsubscribe. */
  subscribe?(sink: EventSink): () => void;
  /** Stops the backend behind the router: cancels its tasks and closes its connections. */
  close?(): Promise<void>;
}

/** What a backend adds to the router besides its handlers. */
export interface RouterHooks {
  subscribe?: (sink: EventSink) => () => void;
  close?: () => Promise<void>;
}

export function createRouter(handlers: Handlers, hooks: RouterHooks = {}): Router {
  return {
    ...(hooks.subscribe ? { subscribe: hooks.subscribe } : {}),
    ...(hooks.close ? { close: hooks.close } : {}),
    async invoke(channel, input) {
      try {
        if (typeof channel !== 'string' || !Object.hasOwn(channels, channel)) {
          throw new ValidationError(`unknown channel ${JSON.stringify(channel)}`, []);
        }
        const name = channel as ChannelName;
        const spec = channels[name];
        // The config's wording for zod's own checks, so that a channel whose input is a config
        // entry (machineTypes:save…) refuses it with the words a config file would get.
        const parsed = spec.input.safeParse(input, { error: configErrorMap });
        if (!parsed.success) {
          const issues = zodIssues(parsed.error);
          throw new ValidationError(`invalid input for ${name}: ${issues.map(formatIssue).join('; ')}`, issues);
        }
        const handler = handlers[name] as (input: unknown) => Promise<unknown> | unknown;
        const result = await handler(parsed.data);
        const checked = spec.output.safeParse(result);
        if (!checked.success) {
          // A service returned something the contract does not allow: a bug here, not the caller's.
          throw new Error(
            `internal error: ${name} returned data outside its contract (${zodIssues(checked.error).map(formatIssue).join('; ')})`,
          );
        }
        return { ok: true, value: checked.data };
      } catch (err) {
        return { ok: false, error: toErrorEnvelope(err) };
      }
    },
  };
}
