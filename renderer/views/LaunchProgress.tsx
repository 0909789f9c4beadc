/**
 * A launch as its task reports it, after the Launch dialog's form: one proxy's steps as
 * `task:update` brings them (with cancel, and an honest failure view: the step that failed
 * and the backend's message), or a launch of many as a row per proxy.
 */
import type { ReactNode } from 'react';
import type { Task } from '../../shared/tasks.js';
import { LAUNCH_STEPS as SHARED_STEPS, type LaunchStep } from '../../shared/launch-steps.js';
import { copyProxyUrl } from '../copy-url.js';
import { useTasksStore } from '../stores/tasks-store.js';
import { Modal } from './ConfirmDialog.js';

/** What each launch step means to a person; typed by the shared step list, so a new step cannot go unlabelled. */
const STEP_LABELS: Record<LaunchStep, string> = {
  validate: 'Check the request',
  place: 'Choose a host',
  image: 'Get the base image',
  upload: 'Upload the image to the host',
  base: 'Choose the base (baked or plain)',
  volumes: 'Create the disks',
  seed: 'Write the cloud-init seed',
  define: 'Define the VM',
  boot: 'Boot the VM',
  address: 'Wait for an address',
  proxy: 'Wait for the proxy to answer',
};

/** The provider's launch steps, in order, with what each means. */
export const LAUNCH_STEPS: { name: string; label: string }[] = SHARED_STEPS.map((name) => ({
  name,
  label: STEP_LABELS[name],
}));

type StepState = 'pending' | 'running' | 'done' | 'failed' | 'cancelled';

function stepStates(task: Task | undefined): { name: string; label: string; state: StepState; message?: string }[] {
  const known = new Map(task?.steps.map((s) => [s.name, s]) ?? []);
  const extra = (task?.steps ?? [])
    .filter((s) => !LAUNCH_STEPS.some((l) => l.name === s.name))
    .map((s) => ({ name: s.name, label: s.name }));
  return [...LAUNCH_STEPS, ...extra].map((s) => {
    const seen = known.get(s.name);
    let state: StepState = seen ? (seen.state === 'done' ? 'done' : 'running') : 'pending';
    if (task && state === 'running' && (task.state === 'failed' || task.state === 'cancelled')) state = task.state;
    if (task?.state === 'failed' && task.error?.step === s.name) state = 'failed';
    return { ...s, state, ...(seen?.message ? { message: seen.message } : {}) };
  });
}

/** The person's word for a step the backend names. */
function stepLabel(name: string): string {
  return LAUNCH_STEPS.find((s) => s.name === name)?.label ?? name;
}

const STEP_MARK: Record<StepState, string> = { pending: '○', running: '◐', done: '✓', failed: '✕', cancelled: '–' };

/** Whether the launch's task has ended (succeeded, failed or cancelled). */
function isFinished(task: Task | undefined): boolean {
  return task !== undefined && !['queued', 'running'].includes(task.state);
}

/**
 * The buttons under a launch, one or many: `children` first (Copy URL), Back to the form
 * after a failure or a cancel, cancel while it runs, and Close (which leaves it running).
 */
function LaunchActions({
  task,
  taskId,
  cancelLabel,
  onBack,
  onClose,
  children,
}: {
  task: Task | undefined;
  taskId: string;
  cancelLabel: string;
  onBack: () => void;
  onClose: () => void;
  children?: ReactNode;
}) {
  const cancel = useTasksStore((s) => s.cancel);
  const finished = isFinished(task);
  return (
    <div className="dialog-actions">
      {children}
      {(task?.state === 'failed' || task?.state === 'cancelled') && (
        // The form comes back as it was: fix the cause and launch again.
        <button type="button" onClick={onBack}>
          Back to the form
        </button>
      )}
      {task?.cancellable && !finished && (
        <button type="button" className="danger" onClick={() => void cancel(taskId)}>
          {cancelLabel}
        </button>
      )}
      <button type="button" autoFocus onClick={onClose}>
        {finished ? 'Close' : 'Close (keeps running in Tasks)'}
      </button>
    </div>
  );
}

/** One proxy's launch: its steps, its outcome, Copy URL once it answers, Back to the form after a failure. */
export function LaunchProgress({
  headingId,
  name,
  task,
  taskId,
  onBack,
  onClose,
}: {
  headingId: string;
  name: string;
  task: Task | undefined;
  taskId: string;
  onBack: () => void;
  onClose: () => void;
}) {
  const steps = stepStates(task);
  return (
    <Modal labelledBy={headingId} onClose={onClose} className="launch">
      <h2 id={headingId}>Launching {name}</h2>
      <ol className="steps" aria-label="Launch steps">
        {steps.map((s) => (
          <li key={s.name} className={`step step-${s.state}`} aria-label={`${s.label}: ${s.state}`}>
            <span className="step-mark" aria-hidden="true">
              {STEP_MARK[s.state]}
            </span>
            <span className="step-label">{s.label}</span>
            <span className="step-name">{s.name}</span>
            {s.message && <span className="step-message">{s.message}</span>}
          </li>
        ))}
      </ol>
      {task?.progress && task.state === 'running' && (
        <progress
          aria-label={`Progress of ${task.step ?? 'the launch'}`}
          max={task.progress.total}
          value={task.progress.total === undefined ? undefined : task.progress.done}
        />
      )}
      <div role="status" className="launch-outcome">
        {!task && 'Waiting for the first step…'}
        {task?.state === 'succeeded' && <p className="ok">{name} is up and its proxy answers.</p>}
        {task?.state === 'cancelled' && <p>The launch was cancelled; what it had created was removed.</p>}
      </div>
      {task?.state === 'failed' && (
        <div role="alert" className="failure">
          <h3>The launch failed{task.error?.step ? ` at “${stepLabel(task.error.step)}”` : ''}</h3>
          <p className="error">{task.error?.message ?? task.message ?? 'no message'}</p>
          <p className="meta">
            {task.error?.name}. What was created has been removed unless the message says otherwise. Fix the cause and
            launch again.
          </p>
        </div>
      )}
      <LaunchActions task={task} taskId={taskId} cancelLabel="Cancel launch" onBack={onBack} onClose={onClose}>
        {task?.state === 'succeeded' && (
          <button type="button" onClick={() => void copyProxyUrl(name)}>
            Copy URL
          </button>
        )}
      </LaunchActions>
    </Modal>
  );
}

const ROW_MARK: Record<'running' | 'done' | 'failed', string> = { running: '◐', done: '✓', failed: '✕' };

/**
 * A launch of many, as its one task reports it: a row per proxy (the task's steps, one per
 * name) with where it is, its outcome, and cancel (only the unfinished ones roll back).
 */
export function LaunchManyProgress({
  headingId,
  task,
  taskId,
  onBack,
  onClose,
}: {
  headingId: string;
  task: Task | undefined;
  taskId: string;
  onBack: () => void;
  onClose: () => void;
}) {
  const finished = isFinished(task);
  const rows = task?.steps ?? [];
  const ok = rows.filter((r) => r.state === 'done').length;
  return (
    <Modal labelledBy={headingId} onClose={onClose} className="launch">
      <h2 id={headingId}>{task?.title ?? 'Launching'}</h2>
      <ol className="steps" aria-label="Proxies being launched">
        {rows.map((r) => {
          const state = r.state === 'running' && finished ? 'cancelled' : r.state;
          return (
            <li key={r.name} className={`step step-${state}`} aria-label={`${r.name}: ${state}`}>
              <span className="step-mark" aria-hidden="true">
                {state === 'cancelled' ? '–' : ROW_MARK[r.state]}
              </span>
              <span className="step-label">{r.name}</span>
              <span className="step-name">{state}</span>
              {r.message && <span className="step-message">{r.message}</span>}
            </li>
          );
        })}
      </ol>
      <div role="status" className="launch-outcome">
        {!task && 'Waiting for the first step…'}
        {task?.state === 'succeeded' && <p className="ok">All {rows.length} are up and their proxies answer.</p>}
        {task?.state === 'cancelled' && (
          <p>Cancelled: {ok} finished and kept; the launches not finished were removed.</p>
        )}
      </div>
      {task?.state === 'failed' && (
        <div role="alert" className="failure">
          <h3>
            {ok} of {rows.length} launched
          </h3>
          <p className="error">{task.error?.message ?? 'no message'}</p>
          <p className="meta">The ones that worked are kept; each failed one removed what it had created.</p>
        </div>
      )}
      <LaunchActions
        task={task}
        taskId={taskId}
        cancelLabel="Cancel the unfinished"
        onBack={onBack}
        onClose={onClose}
      />
    </Modal>
  );
}
