/**
 * What the app's backend writes to its log, for both front ends (the Electron shell and
 * `egress-desk serve`): host connection state changes, task starts and outcomes, and calls
 * that failed. Only names, states and error messages are logged — never a call's input or
 * output, a task's result, or a URL — so a proxy password or SSH passphrase has no path
 * to the file even before pino's redaction by key (services/log/logger.ts) is applied.
 */
import type { ConfigChanged, EventName, EventPayload } from '../../shared/ipc.js';
import type { Envelope } from '../../shared/ipc-transport.js';
import type { HostStatus } from '../../shared/hosts.js';
import type { Task } from '../../shared/tasks.js';
import type { EventSink, Router } from './router.js';
import type { Logger } from '../services/log/logger.js';

const FINISHED: ReadonlySet<Task['state']> = new Set(['succeeded', 'failed', 'cancelled']);

/** Tasks remembered for de-duplication; beyond this the oldest are forgotten (a long-running serve). */
const MAX_TRACKED_TASKS = 2000;

/**
 * An event sink that logs what a person reading the log after a problem needs: one line
 * per host state change (not per refresh), one when a task starts and one when it ends.
 */
export function appEventLogger(log: Logger): EventSink {
  const hostStates = new Map<string, string>();
  const tasks = new Map<string, 'started' | 'finished'>();
  const hostWarnings = new Map<string, string>();
  const onHost = (status: HostStatus) => {
    // ssh_config warnings once per host and content, not per state change: each is a fact about the config.
    const warnings = (status.warnings ?? []).join('\n');
    if (warnings !== (hostWarnings.get(status.name) ?? '')) {
      hostWarnings.set(status.name, warnings);
      if (warnings)
        log.warn(
          { host: status.name, warnings: status.warnings },
          `host ${status.name}: ssh_config: ${status.warnings!.join('; ')}`,
        );
    }
    const key = `${status.state}\n${status.message ?? ''}`;
    if (hostStates.get(status.name) === key) return;
    const first = !hostStates.has(status.name);
    hostStates.set(status.name, key);
    const fields = {
      host: status.name,
      via: status.via,
      state: status.state,
      ...(status.message ? { reason: status.message } : {}),
    };
    if (status.state === 'error') log.warn(fields, `host ${status.name}: ${status.state}`);
    else log.info({ ...fields, first }, `host ${status.name}: ${status.state}`);
  };
  const onTask = (task: Task) => {
    const seen = tasks.get(task.id);
    if (seen === 'finished') return;
    const fields = { task: task.id, kind: task.kind, ...(task.target ? { target: task.target } : {}) };
    if (FINISHED.has(task.state)) {
      tasks.set(task.id, 'finished');
      const ms = task.started && task.finished ? Date.parse(task.finished) - Date.parse(task.started) : undefined;
      const outcome = { ...fields, state: task.state, ...(ms !== undefined ? { ms } : {}) };
      if (task.state === 'failed')
        log.warn(
          { ...outcome, error: { name: task.error?.name, message: task.error?.message, step: task.error?.step } },
          `task failed: ${task.title}`,
        );
      else log.info(outcome, `task ${task.state}: ${task.title}`);
    } else if (seen === undefined) {
      tasks.set(task.id, 'started');
      log.info({ ...fields, state: task.state }, `task started: ${task.title}`);
    }
    if (tasks.size > MAX_TRACKED_TASKS) tasks.delete(tasks.keys().next().value!);
  };
  const onConfig = (state: ConfigChanged) => {
    // A write through the app is the call's own outcome (logged as a call when it fails), not news.
    if (state.by === 'app') return;
    if (state.config)
      log.info({ file: state.path }, `config: ${state.path} changed outside the app; the new config is in use`);
    else {
      const problems = state.issues?.map(
        (i) => `${i.line !== undefined ? `line ${i.line}: ` : ''}${i.path}: ${i.message}`,
      ) ?? [state.error ?? 'cannot be read'];
      log.warn(
        { file: state.path, problems },
        `config: ${state.path} changed outside the app and does not load (${problems.join('; ')}); ${state.lastGood ? 'the app keeps using the last good config' : 'no config is in use'}`,
      );
    }
  };
  return <E extends EventName>(event: E, payload: EventPayload<E>) => {
    if (event === 'config:changed') onConfig(payload as ConfigChanged);
    else if (event === 'host:status') onHost(payload as HostStatus);
    else if (event === 'task:update') onTask(payload as Task);
  };
}

/**
 * The router, with every failed call logged (channel, error name and message). Inputs are
 * not logged: a launch carries the proxy's password, `hosts:trust` what the user typed.
 * Validation errors are logged at debug level (the renderer shows them inline; they are
 * the user's typing, not the app's failure).
 */
export function loggedRouter(router: Router, log: Logger): Router {
  return {
    ...router,
    async invoke(channel: unknown, input: unknown): Promise<Envelope> {
      const envelope = await router.invoke(channel, input);
      if (!envelope.ok) {
        const fields = {
          channel: typeof channel === 'string' ? channel.slice(0, 100) : typeof channel,
          error: { name: envelope.error.name, message: envelope.error.message },
        };
        if (envelope.error.name === 'ValidationError') log.debug(fields, 'call refused: invalid input');
        else log.warn(fields, `call failed: ${fields.channel}`);
      }
      return envelope;
    },
  };
}

/** Logs the backend's events and failed calls; returns the logged router and the unsubscribe. */
export function logBackend(router: Router, log: Logger): { router: Router; stop: () => void } {
  const stop = router.subscribe?.(appEventLogger(log)) ?? (() => undefined);
  return { router: loggedRouter(router, log), stop };
}
