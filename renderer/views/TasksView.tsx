/** Every long operation, newest first: title, step, progress, cancel, outcome. Rebuilt from tasks:list after a reload. */
import type { Task } from '../../shared/tasks.js';
import { useShallow } from 'zustand/react/shallow';
import { isActive, sortedTasks, useTasksStore } from '../stores/tasks-store.js';

function Outcome({ task }: { task: Task }) {
  if (task.state === 'failed')
    return (
      <p className="error">
        Failed{task.error?.step ? ` at “${task.error.step}”` : ''}: {task.error?.message ?? task.message}
      </p>
    );
  if (task.state === 'cancelled') return <p className="meta">Cancelled.</p>;
  if (task.state === 'succeeded')
    return <p className="ok">Done{task.finished ? ` at ${new Date(task.finished).toLocaleTimeString()}` : ''}.</p>;
  return null;
}

export function TaskItem({ task }: { task: Task }) {
  const cancel = useTasksStore((s) => s.cancel);
  const p = task.progress;
  return (
    <li className={`task task-${task.state}`} aria-labelledby={`task-${task.id}`}>
      <div className="task-head">
        <strong id={`task-${task.id}`}>{task.title}</strong>
        <span className={`badge task-state-${task.state}`}>{task.state}</span>
        {task.step && isActive(task) && (
          <span className="meta">
            step {task.step}
            {task.message ? `: ${task.message}` : ''}
          </span>
        )}
        {task.cancellable && isActive(task) && (
          <button
            type="button"
            className="small danger"
            aria-label={`Cancel ${task.title}`}
            onClick={() => void cancel(task.id)}
          >
            Cancel
          </button>
        )}
      </div>
      {isActive(task) && (
        <progress
          aria-label={`Progress of ${task.title}`}
          max={p?.total ?? undefined}
          value={p?.total !== undefined ? p.done : undefined}
        />
      )}
      <Outcome task={task} />
    </li>
  );
}

export function TasksView() {
  const { tasks, loaded, error } = useTasksStore(
    useShallow((s) => ({ tasks: s.tasks, loaded: s.loaded, error: s.error })),
  );
  const list = sortedTasks(tasks);
  return (
    <section className="view" aria-labelledby="tasks-h">
      <div className="view-head">
        <h2 id="tasks-h">Tasks</h2>
        <span className="meta">{list.filter(isActive).length} running</span>
      </div>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      {loaded && list.length === 0 ? (
        <p className="empty">
          No task yet. Launching, starting, stopping or deleting a proxy, or pulling an image, shows up here with its
          progress.
        </p>
      ) : (
        <ul className="tasks" aria-label="Tasks">
          {list.map((t) => (
            <TaskItem key={t.id} task={t} />
          ))}
        </ul>
      )}
    </section>
  );
}
