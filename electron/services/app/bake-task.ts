/**
 * Baking an image on a host as a task of the app (Tasks view, the image row's Bake button,
 * the automatic bake after a launch): the bake's steps become the task's steps, Cancel
 * aborts it (bake.ts removes everything it made), and a bake of the same image and host
 * already running is joined instead of started twice.
 */
import type { AppSettings } from '../../../shared/app-settings.js';
import type { TaskService } from '../tasks/task-service.js';
import type { TaskKind } from '../../../shared/tasks.js';
import type { FleetAssembly } from './fleet-assembly.js';
import { UnknownEntryError } from './errors.js';

/** What a bake task needs of the backend: the config's names and the provider's bake. */
export type BakeBackend = {
  config: Pick<FleetAssembly['config'], 'images' | 'hosts'>;
  provider: Pick<FleetAssembly['provider'], 'bake'>;
};

/** The task kind of a bake; its target is `image@host`. */
export const BAKE_TASK_KIND = 'images:bake' satisfies TaskKind;

export function bakeTarget(image: string, host: string): string {
  return `${image}@${host}`;
}

/** Starts (or joins) the bake of `image` on `host`; returns the task's id. Unknown names are refused before any task. */
export function startBakeTask(
  backend: BakeBackend,
  tasks: TaskService,
  image: string,
  host: string,
  title = `Bake image ${image} on ${host}`,
): string {
  if (!backend.config.images[image])
    throw new UnknownEntryError(
      `no image named ${JSON.stringify(image)} (known: ${Object.keys(backend.config.images).join(', ') || 'none'})`,
    );
  if (!backend.config.hosts.some((h) => h.name === host))
    throw new UnknownEntryError(
      `no host named ${JSON.stringify(host)} (known: ${backend.config.hosts.map((h) => h.name).join(', ') || 'none'})`,
    );
  const running = tasks
    .list()
    .find(
      (t) =>
        t.kind === BAKE_TASK_KIND &&
        t.target === bakeTarget(image, host) &&
        (t.state === 'running' || t.state === 'queued'),
    );
  if (running) return running.id;
  return tasks.run(
    title,
    async (ctx) => {
      const r = await backend.provider.bake(image, host, {
        signal: ctx.signal,
        onStep: (e) => {
          if (e.phase === 'start') ctx.step(e.step, e.message);
          else if (e.phase === 'done') ctx.stepDone(e.message);
          else if (e.done !== undefined) ctx.progress(e.done, e.total);
        },
      });
      return { host: r.host, image: r.image, volume: r.volume.name, created: r.created, ms: r.ms };
    },
    { kind: BAKE_TASK_KIND, target: bakeTarget(image, host) },
  );
}

/** What a finished launch tells the automatic bake: where it ran, from which image, on which base. */
export interface LaunchOutcome {
  host: string;
  image: string;
  base?: { baked: boolean };
}

/**
 * Whether a finished launch should be followed by a bake in the background: the setting is
 * on (default), the launch used a plain base (a launch on a baked base, or one that did not
 * say which base it used, needs none), and no bake of that image on that host failed in
 * this session (`failedBefore`): a bake that fails (no package source, say) is not retried
 * after every launch; Bake on the image row tries again.
 */
export function shouldAutoBake(
  settings: Pick<AppSettings, 'autoBake'>,
  launch: LaunchOutcome,
  failedBefore = false,
): boolean {
  return settings.autoBake !== false && launch.base !== undefined && !launch.base.baked && !failedBefore;
}

/**
 * After a launch: bakes its image on its host in the background when {@link shouldAutoBake}
 * says so (a task titled as automatic, so the Tasks view shows it and why). Never throws:
 * a settings file that cannot be read means the default (on), a refused start is dropped.
 * Returns the task's id, or undefined when nothing was started.
 */
export async function autoBakeAfter(
  backend: BakeBackend,
  tasks: TaskService,
  launch: LaunchOutcome & { proxy: string },
  settings: () => Promise<Pick<AppSettings, 'autoBake'>>,
): Promise<string | undefined> {
  const s = await settings().catch(() => ({ autoBake: true }));
  const failedBefore = tasks
    .list()
    .some(
      (t) => t.kind === BAKE_TASK_KIND && t.target === bakeTarget(launch.image, launch.host) && t.state === 'failed',
    );
  if (!shouldAutoBake(s, launch, failedBefore)) return undefined;
  try {
    return startBakeTask(
      backend,
      tasks,
      launch.image,
      launch.host,
      `Bake image ${launch.image} on ${launch.host} (automatic, after launching ${launch.proxy} on a plain base)`,
    );
  } catch {
    return undefined;
  }
}
