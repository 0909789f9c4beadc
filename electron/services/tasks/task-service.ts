/**
 * Long operations as tasks: each has an id, a title, steps, progress, a final state, and
 * an AbortController behind `cancel`. They live in the backend process, so a renderer
 * that reloads loses nothing: it lists them again and keeps listening to updates.
 *
 * Updates go to one listener (`task:update` on the events channel). Step changes and the
 * final state go out at once; progress is coalesced to at most one update per
 * `progressIntervalMs` (100 ms: ≤ 10/s) per task, with the latest value sent last, so a fast
 * download never floods the bridge and the bar still ends where the bytes did.
 */
import type { Task, TaskKind } from '../../../shared/tasks.js';

/** What a task's function gets. */
export interface TaskContext {
  /** Aborted by `cancel`; pass it on to everything the task waits for. */
  readonly signal: AbortSignal;
  /** A new step begins (the previous one is done); `message` says what it is doing. */
  step(name: string, message?: string): void;
  /** The current step finished, optionally saying what it found. */
  stepDone(message?: string): void;
  /** Progress of the current step; `total` absent when unknown. */
  progress(done: number, total?: number): void;
  /**
   * A row of a task that runs several things at once (one per proxy of a launch of many):
   * the step of that name is added or updated, and no other step changes.
   */
  row(name: string, state: 'running' | 'done' | 'failed', message?: string): void;
  /** After this, `cancel` is refused (the work can no longer be undone halfway). */
  notCancellable(): void;
}

export interface RunOptions {
  /** What kind of task this is (shared/tasks.ts). */
  kind: TaskKind;
  target?: string;
  /** Whether it can be cancelled at all (default true). */
  cancellable?: boolean;
}

export interface TaskServiceOptions {
  /** Receives every update (a copy of the task). */
  onUpdate?: (task: Task) => void;
  /** Milliseconds since the epoch (default Date.now). */
  now?: () => number;
  /** Schedules the trailing progress update; injected so tests drive time. */
  setTimer?: (fn: () => void, ms: number) => { cancel: () => void };
  progressIntervalMs?: number;
  /** Finished tasks kept for `list` (default 100); running ones are always kept. */
  history?: number;
}

/** Cancelling a task that is not known (or long forgotten). */
export class TaskNotFoundError extends Error {
  override readonly name = 'TaskNotFoundError';
  constructor(readonly id: string) {
    super(`no task ${JSON.stringify(id)} (finished tasks are kept for the last 100 only)`);
  }
}

/** Why a task's signal was aborted by `cancel`. */
export class TaskCancelledError extends Error {
  override readonly name = 'TaskCancelledError';
  constructor(title: string) {
    super(`${title}: cancelled`);
  }
}

interface Entry {
  task: Task;
  controller: AbortController;
  lastProgressAt: number;
  pendingProgress?: { cancel: () => void } | undefined;
  done: Promise<Task>;
}

const FINAL = new Set<Task['state']>(['succeeded', 'failed', 'cancelled']);

function defaultTimer(fn: () => void, ms: number): { cancel: () => void } {
  const timer = setTimeout(fn, ms);
  timer.unref?.();
  return { cancel: () => clearTimeout(timer) };
}

/** Turns a thrown value into the task's error (name, message and the failing step when it has one). */
function taskError(err: unknown): NonNullable<Task['error']> {
  if (err instanceof Error) {
    const step = (err as { step?: unknown }).step;
    return { name: err.name, message: err.message, ...(typeof step === 'string' ? { step } : {}) };
  }
  return { name: 'Error', message: String(err) };
}

/** A value the contract can carry (JSON data), or undefined. */
function jsonResult(value: unknown): unknown {
  if (value === undefined) return undefined;
  return JSON.parse(JSON.stringify(value)) as unknown;
}

export class TaskService {
  private readonly tasks = new Map<string, Entry>();
  private readonly now: () => number;
  private readonly setTimer: NonNullable<TaskServiceOptions['setTimer']>;
  private readonly interval: number;
  private readonly history: number;
  private next = 1;
  private onUpdate: ((task: Task) => void) | undefined;

  constructor(options: TaskServiceOptions = {}) {
    this.now = options.now ?? Date.now;
    this.setTimer = options.setTimer ?? defaultTimer;
    this.interval = options.progressIntervalMs ?? 100;
    this.history = options.history ?? 100;
    this.onUpdate = options.onUpdate;
  }

  /** Replaces the update listener (the app service wires it to its events). */
  setListener(listener: ((task: Task) => void) | undefined): void {
    this.onUpdate = listener;
  }

  /** Starts `fn` as a task and returns its id at once; the task's outcome is in its updates. */
  run<T>(title: string, fn: (ctx: TaskContext) => Promise<T>, options: RunOptions): string {
    const id = `t${this.next++}-${this.now().toString(36)}`;
    const controller = new AbortController();
    const iso = () => new Date(this.now()).toISOString();
    const task: Task = {
      id,
      title,
      kind: options.kind,
      state: 'queued',
      steps: [],
      cancellable: options.cancellable ?? true,
      created: iso(),
    };
    if (options.target !== undefined) task.target = options.target;
    const entry: Entry = { task, controller, lastProgressAt: Number.NEGATIVE_INFINITY, done: Promise.resolve(task) };
    this.tasks.set(id, entry);
    this.emit(entry);

    const ctx: TaskContext = {
      signal: controller.signal,
      step: (name, message) => {
        if (FINAL.has(task.state)) return;
        const current = task.steps.at(-1);
        if (current?.state === 'running') current.state = 'done';
        task.steps.push({ name, state: 'running', ...(message !== undefined ? { message } : {}) });
        task.step = name;
        if (message !== undefined) task.message = message;
        else delete task.message;
        delete task.progress;
        this.flush(entry);
      },
      stepDone: (message) => {
        if (FINAL.has(task.state)) return;
        const current = task.steps.at(-1);
        if (!current) return;
        current.state = 'done';
        if (message !== undefined) {
          current.message = message;
          task.message = message;
        }
        this.flush(entry);
      },
      progress: (done, total) => {
        if (FINAL.has(task.state)) return;
        task.progress = total === undefined ? { done } : { done, total };
        this.throttled(entry);
      },
      row: (name, state, message) => {
        if (FINAL.has(task.state)) return;
        let row = task.steps.find((s) => s.name === name);
        if (!row) {
          row = { name, state };
          task.steps.push(row);
        }
        row.state = state;
        if (message !== undefined) row.message = message;
        this.flush(entry);
      },
      notCancellable: () => {
        if (!task.cancellable) return;
        task.cancellable = false;
        this.flush(entry);
      },
    };

    entry.done = (async () => {
      // Let the caller have the id (and the queued update) before any work starts.
      await Promise.resolve();
      task.state = 'running';
      task.started = iso();
      this.flush(entry);
      try {
        const result = jsonResult(await fn(ctx));
        if (controller.signal.aborted) throw controller.signal.reason;
        task.state = 'succeeded';
        if (result !== undefined) task.result = result;
      } catch (err) {
        task.state = controller.signal.aborted ? 'cancelled' : 'failed';
        task.error = taskError(controller.signal.aborted && !(err instanceof Error) ? controller.signal.reason : err);
      }
      const current = task.steps.at(-1);
      if (current?.state === 'running' && task.state === 'succeeded') current.state = 'done';
      task.cancellable = false;
      task.finished = iso();
      this.flush(entry);
      this.trim();
      return structuredClone(task);
    })();
    return id;
  }

  /** Every task, oldest first (copies). */
  list(): Task[] {
    return [...this.tasks.values()].map((e) => structuredClone(e.task));
  }

  get(id: string): Task | undefined {
    const entry = this.tasks.get(id);
    return entry && structuredClone(entry.task);
  }

  /** Resolves with the task once it has finished (tests, and callers that wait). */
  async wait(id: string): Promise<Task> {
    const entry = this.tasks.get(id);
    if (!entry) throw new TaskNotFoundError(id);
    return entry.done;
  }

  /** Asks a task to stop. False when it has finished or cannot be cancelled any more. */
  cancel(id: string): boolean {
    const entry = this.tasks.get(id);
    if (!entry) throw new TaskNotFoundError(id);
    if (FINAL.has(entry.task.state) || !entry.task.cancellable || entry.controller.signal.aborted) return false;
    entry.controller.abort(new TaskCancelledError(entry.task.title));
    return true;
  }

  /** Cancels everything still running (app shutdown) and waits for it to settle. */
  async close(): Promise<void> {
    const running = [...this.tasks.values()].filter((e) => !FINAL.has(e.task.state));
    for (const e of running) e.controller.abort(new TaskCancelledError(e.task.title));
    await Promise.all(running.map((e) => e.done));
    this.onUpdate = undefined;
  }

  private throttled(entry: Entry): void {
    if (entry.pendingProgress) return;
    const wait = entry.lastProgressAt + this.interval - this.now();
    if (wait <= 0) return this.flush(entry);
    entry.pendingProgress = this.setTimer(() => {
      entry.pendingProgress = undefined;
      this.flush(entry);
    }, wait);
  }

  /** Sends the task as it is now (a pending progress update is folded in). */
  private flush(entry: Entry): void {
    entry.pendingProgress?.cancel();
    entry.pendingProgress = undefined;
    entry.lastProgressAt = this.now();
    this.emit(entry);
  }

  private emit(entry: Entry): void {
    try {
      this.onUpdate?.(structuredClone(entry.task));
    } catch {
      // A listener's failure must not fail the task.
    }
  }

  /** Forgets the oldest finished tasks beyond the history bound. */
  private trim(): void {
    const finished = [...this.tasks.values()].filter((e) => FINAL.has(e.task.state));
    for (const e of finished.slice(0, Math.max(0, finished.length - this.history))) this.tasks.delete(e.task.id);
  }
}
