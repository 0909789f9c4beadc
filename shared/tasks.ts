/**
 * Tasks: long operations (launch, start, stop, delete, image pull) that run in the
 * backend process with progress and cancellation. They outlive a renderer reload: a
 * window that comes back asks `tasks:list` and keeps listening to `task:update`.
 */
import { z } from 'zod';

export const TASK_STATES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;
export type TaskState = (typeof TASK_STATES)[number];

/**
 * What kind of operation a task is: the channel that starts it, or what the backend runs on
 * its own under that name (expiry deletes, auto-replace, auto-bake). The renderer groups and
 * links tasks by it, so a kind nobody listed is refused at the bridge rather than shown as
 * nothing.
 */
export const TASK_KINDS = [
  'proxies:launch',
  'proxies:launchMany',
  'proxies:replace',
  'proxies:start',
  'proxies:stop',
  'proxies:delete',
  'images:pull',
  'images:verify',
  'images:bake',
] as const;
export const TaskKindSchema = z.enum(TASK_KINDS);
export type TaskKind = z.infer<typeof TaskKindSchema>;

/** A failure as it crosses the bridge (the same shape as the router's error envelope). */
export const TaskErrorSchema = z.object({
  name: z.string(),
  message: z.string(),
  /** The step it failed at, when the operation has steps (a launch). */
  step: z.string().optional(),
});

export const TaskStepSchema = z.object({
  name: z.string(),
  /** `failed`: only a row of a task that runs several things at once (a launch of many) fails alone. */
  state: z.enum(['running', 'done', 'failed']),
  message: z.string().optional(),
});

export const TaskSchema = z.object({
  id: z.string(),
  title: z.string(),
  /** What kind of operation (TASK_KINDS); the renderer groups and links by it. */
  kind: TaskKindSchema,
  /** The object it acts on (a proxy or image name), when there is one. */
  target: z.string().optional(),
  state: z.enum(TASK_STATES),
  /** The step running now (or the last one). */
  step: z.string().optional(),
  message: z.string().optional(),
  /** Every step seen so far, in order. */
  steps: z.array(TaskStepSchema),
  /** `total` is absent when unknown (an indeterminate bar). */
  progress: z.object({ done: z.number(), total: z.number().optional() }).optional(),
  /** Whether `tasks:cancel` can still stop it. */
  cancellable: z.boolean(),
  /** What it produced (JSON data; never a secret). */
  result: z.unknown().optional(),
  error: TaskErrorSchema.optional(),
  /** ISO 8601 instants. */
  created: z.string(),
  started: z.string().optional(),
  finished: z.string().optional(),
});
export type Task = z.infer<typeof TaskSchema>;

/** What a channel that starts a task answers. */
export const TaskRefSchema = z.object({ taskId: z.string() });
export type TaskRef = z.infer<typeof TaskRefSchema>;
