/**
 * Baking one image on one host from its image row: "baked" or "plain" per host, a Bake
 * button (the `images:bake` task: steps, progress, Cancel through `tasks:cancel`; a failed
 * or cancelled bake leaves nothing on the host), and the outcome with the backend's message.
 * The task is found in the tasks store by kind and target (`image@host`), so a reloaded
 * window, and an automatic bake after a launch, show here too.
 */
import { useState } from 'react';
import type { ImagePresence } from '../../shared/images-view.js';
import type { Task } from '../../shared/tasks.js';
import { errorMessage, formatBytes } from '../format.js';
import { bakeImage } from '../stores/catalog-actions.js';
import { isActive, useTasksStore } from '../stores/tasks-store.js';

function latestBake(tasks: Record<string, Task>, target: string): Task | undefined {
  let latest: Task | undefined;
  for (const t of Object.values(tasks))
    if (t.kind === 'images:bake' && t.target === target && (!latest || t.created > latest.created)) latest = t;
  return latest;
}

export function ImageBake({ image, presence }: { image: string; presence: ImagePresence }) {
  const target = `${image}@${presence.host}`;
  const task = useTasksStore((s) => latestBake(s.tasks, target));
  const cancel = useTasksStore((s) => s.cancel);
  const [error, setError] = useState<string>();
  const [starting, setStarting] = useState(false);
  const active = task !== undefined && isActive(task);

  async function bake() {
    setStarting(true);
    setError(undefined);
    try {
      await bakeImage(image, presence.host);
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setStarting(false);
    }
  }

  if (presence.base === undefined) return null;
  const p = task?.progress;
  return (
    <span className="bake">
      {' '}
      <span
        className={`base-${presence.base}`}
        title={
          presence.base === 'baked' ? presence.bakedVolume : 'Launches here install the proxy software at first boot'
        }
      >
        ({presence.base})
      </span>
      {active ? (
        <span className="meta bake-progress" role="status" aria-label={`Baking ${image} on ${presence.host}`}>
          {' '}
          baking: {task.step ?? 'starting'}
          {p ? ` ${formatBytes(p.done)}${p.total ? ` of ${formatBytes(p.total)}` : ''}` : ''}…{' '}
          {task.cancellable && (
            <button
              type="button"
              className="small"
              aria-label={`Cancel baking ${image} on ${presence.host}`}
              onClick={() => void cancel(task.id)}
            >
              Cancel
            </button>
          )}
        </span>
      ) : (
        presence.base === 'plain' && (
          <>
            {' '}
            <button
              type="button"
              className="small"
              aria-label={`Bake ${image} on ${presence.host}`}
              disabled={starting}
              onClick={() => void bake()}
            >
              Bake
            </button>
          </>
        )
      )}
      {task && !active && task.state === 'failed' && (
        <span className="error bake-outcome" role="alert">
          {' '}
          Bake failed: {task.error?.message ?? task.message ?? 'no reason given'}
        </span>
      )}
      {task && !active && task.state === 'cancelled' && <span className="meta bake-outcome"> Bake cancelled</span>}
      {error && (
        <span className="error bake-outcome" role="alert">
          {' '}
          {error}
        </span>
      )}
    </span>
  );
}
