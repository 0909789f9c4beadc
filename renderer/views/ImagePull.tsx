/**
 * Pulling one image into the local cache: the Pull button starts `images:pull` (a task),
 * the bar follows its `task:update` progress (bytes of total), Cancel goes through
 * `tasks:cancel`, and the outcome stays shown: verified, or failed with the backend's
 * message (a checksum mismatch says which digest it got). The task is found in the tasks
 * store by kind and target, so a reloaded window shows the pull it left.
 */
import { useState } from 'react';
import type { ImageView } from '../../shared/images-view.js';
import type { Task } from '../../shared/tasks.js';
import { pullImage } from '../stores/catalog-actions.js';
import { errorMessage, formatBytes } from '../format.js';
import { isActive, useTasksStore } from '../stores/tasks-store.js';

/** The newest pull task of an image. */
function latestPull(tasks: Record<string, Task>, name: string): Task | undefined {
  let latest: Task | undefined;
  for (const t of Object.values(tasks)) {
    if (t.kind === 'images:pull' && t.target === name && (!latest || t.created > latest.created)) latest = t;
  }
  return latest;
}

export function PullProgress({ task, name }: { task: Task; name: string }) {
  const cancel = useTasksStore((s) => s.cancel);
  const p = task.progress;
  const total = p?.total;
  const percent = p && total ? Math.min(100, Math.floor((p.done / total) * 100)) : undefined;
  return (
    <div className="pull-progress">
      <progress
        role="progressbar"
        aria-label={`Pulling ${name}`}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        aria-valuetext={p ? `${formatBytes(p.done)}${total ? ` of ${formatBytes(total)}` : ''}` : 'starting'}
        max={100}
        value={percent}
      />
      <span className="meta pull-bytes">
        {p ? `${formatBytes(p.done)}${total ? ` of ${formatBytes(total)}` : ''}` : 'starting…'}
      </span>
      {task.cancellable && (
        <button
          type="button"
          className="small"
          aria-label={`Cancel pulling ${name}`}
          onClick={() => void cancel(task.id)}
        >
          Cancel
        </button>
      )}
    </div>
  );
}

function Outcome({ task }: { task: Task }) {
  if (task.state === 'succeeded') {
    const size = (task.result as { sizeBytes?: unknown } | undefined)?.sizeBytes;
    return (
      <span className="ok pull-outcome">
        Pulled, sha256 verified{typeof size === 'number' ? ` (${formatBytes(size)})` : ''}
      </span>
    );
  }
  if (task.state === 'cancelled') return <span className="meta pull-outcome">Pull cancelled</span>;
  return (
    <span className="error pull-outcome" role="alert">
      Pull failed: {task.error?.message ?? task.message ?? 'no reason given'}
    </span>
  );
}

export function ImagePull({ image }: { image: ImageView }) {
  const task = useTasksStore((s) => latestPull(s.tasks, image.name));
  const [error, setError] = useState<string>();
  const [starting, setStarting] = useState(false);
  const active = task !== undefined && isActive(task);

  async function pull() {
    setStarting(true);
    setError(undefined);
    try {
      // The task itself reaches the store through task:update (the bar follows it from there).
      await pullImage(image.name);
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setStarting(false);
    }
  }

  const label = image.cache === 'partial' ? 'Resume pull' : 'Pull';
  return (
    <div className="pull">
      {active ? (
        <PullProgress task={task} name={image.name} />
      ) : (
        <button
          type="button"
          className="small"
          aria-label={`${label} ${image.name}`}
          disabled={starting}
          onClick={() => void pull()}
        >
          {label}
        </button>
      )}
      {task && !active && <Outcome task={task} />}
      {error && (
        <span className="error" role="alert">
          Cannot pull: {error}
        </span>
      )}
    </div>
  );
}
