/**
 * The Launch dialog: a form (validated inline with the contract's own rules), then, once
 * `proxies:launch` answers with a task, the task's steps as `task:update` brings them, with
 * cancel, and an honest failure view (the step that failed and the backend's message).
 */
import { type FormEvent, useEffect, useId, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { DEFAULTS } from '../../shared/config.js';
import { type ProxyKind, SOCKS5_DEFAULT_PORT } from '../../shared/proxy.js';
import { formToSpec, launchFormErrors } from '../../shared/launch-form.js';
import { LAUNCH_MANY_MAX, type LaunchManyProblem, type Strategy, expandNames, parseStrategy } from '../../shared/launch-many.js';
import type { Task } from '../../shared/tasks.js';
import { useAppConfigStore } from '../stores/app-config-store.js';
import { copyProxyUrl } from '../copy-url.js';
import { errorMessage } from '../format.js';
import { launchProxies, launchProxy, placeFor } from '../stores/proxy-actions.js';
import { useHostsStore } from '../stores/hosts-store.js';
import { useTasksStore } from '../stores/tasks-store.js';
import { Modal } from './ConfirmDialog.js';
import { LAUNCH_STEPS as SHARED_STEPS, type LaunchStep } from '../../shared/launch-steps.js';

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
export const LAUNCH_STEPS: { name: string; label: string }[] = SHARED_STEPS.map((name) => ({ name, label: STEP_LABELS[name] }));

type StepState = 'pending' | 'running' | 'done' | 'failed' | 'cancelled';

function stepStates(task: Task | undefined): { name: string; label: string; state: StepState; message?: string }[] {
  const known = new Map(task?.steps.map((s) => [s.name, s]) ?? []);
  const extra = (task?.steps ?? []).filter((s) => !LAUNCH_STEPS.some((l) => l.name === s.name)).map((s) => ({ name: s.name, label: s.name }));
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

function Field({ id, label, error, hint, children }: { id: string; label: string; error?: string; hint?: string; children: React.ReactNode }) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children}
      {hint && !error && <span className="hint" id={`${id}-hint`}>{hint}</span>}
      {error && (
        <span className="field-error" id={`${id}-error`} role="alert">
          {error}
        </span>
      )}
    </div>
  );
}

export function LaunchDialog({ onClose }: { onClose: () => void }) {
  const base = useId();
  const headingId = `${base}-h`;
  const ids = { count: `${base}-count`, placement: `${base}-placement`, hostList: `${base}-hosts`, name: `${base}-name`, host: `${base}-host`, type: `${base}-type`, image: `${base}-image`, port: `${base}-port`, kind: `${base}-kind`, allow: `${base}-allow`, labels: `${base}-labels`, ttl: `${base}-ttl` };
  const hosts = useHostsStore((s) => s.hosts);
  const { machineTypes, images, state } = useAppConfigStore(useShallow((s) => ({ machineTypes: s.machineTypes, images: s.images, state: s.state })));
  const [name, setName] = useState('');
  const [count, setCount] = useState('1');
  const [placement, setPlacement] = useState<'spread' | 'pack' | 'hosts'>('spread');
  const [hostList, setHostList] = useState('');
  const [touched, setTouched] = useState(false);
  const [host, setHost] = useState('');
  const [machineType, setMachineType] = useState('');
  const [image, setImage] = useState('');
  const [port, setPort] = useState('');
  const [kind, setKind] = useState<ProxyKind>('http');
  const [allow, setAllow] = useState('');
  const [labels, setLabels] = useState('');
  const [ttl, setTtl] = useState('');
  const [submitError, setSubmitError] = useState<string | undefined>();
  const [submitting, setSubmitting] = useState(false);
  const [taskId, setTaskId] = useState<string | undefined>();
  const task = useTasksStore((s) => (taskId ? s.tasks[taskId] : undefined));
  const cancel = useTasksStore((s) => s.cancel);

  // What "Automatic" would choose now, and why: asked again when the machine type or a host's state changes.
  const [auto, setAuto] = useState<{ ok: true; reason: string } | { ok: false; message: string }>();
  // Only a host becoming connected (or going away) changes the answer; asking never connects a host.
  const connectedHosts = hosts.filter((h) => h.state === 'connected').map((h) => h.name).join(',');
  useEffect(() => {
    if (host) return;
    let live = true;
    placeFor(machineType ? { machineType } : {}).then(
        (p) => live && setAuto({ ok: true, reason: p.reason }),
        (err: unknown) => live && setAuto({ ok: false, message: errorMessage(err) }),
      );
    return () => {
      live = false;
    };
  }, [host, machineType, connectedHosts]);
  const hostHint = host ? undefined : auto ? (auto.ok ? `Automatic now: ${auto.reason}.` : `Automatic cannot place it now: ${auto.message}`) : 'Automatic picks the connected host with the most free memory.';

  const form = { name, host, machineType, image, port, kind, allow, labels, ttl };
  // Launch many: the count, the names its pattern gives ({n} → 1…N) and where they go (shared/launch-many.ts, as the CLI's --count).
  const many = count.trim() !== '1';
  const expanded = many ? expandNames(name, /^\d+$/.test(count.trim()) ? Number(count.trim()) : NaN) : undefined;
  const strategy: Strategy | { problem: LaunchManyProblem } = placement === 'hosts' ? parseStrategy(hostList) : { kind: placement };
  const manyErrors = expanded && 'problem' in expanded ? { [expanded.problem.field]: expanded.problem.message } : {};
  const strategyError = many && 'problem' in strategy ? strategy.problem.message : undefined;
  const checked = { ...launchFormErrors(many ? { ...form, name: 'many' } : form), ...manyErrors } as ReturnType<typeof launchFormErrors> & { count?: string };
  const errors = { ...checked, name: touched ? checked.name : undefined };
  const defaultPort = kind === 'socks5' ? SOCKS5_DEFAULT_PORT : (state?.config?.kvm?.proxy?.port ?? DEFAULTS.proxyPort);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setTouched(true);
    if (checked.name || checked.count || strategyError || checked.port || checked.allow || checked.labels || checked.ttl) return;
    const spec = formToSpec(many ? { ...form, host: '' } : form);
    setSubmitting(true);
    setSubmitError(undefined);
    try {
      const ref =
        expanded && 'names' in expanded && !('problem' in strategy)
          ? await launchProxies({ specs: expanded.names.map((n) => ({ ...spec, name: n })), strategy })
          : await launchProxy(spec);
      setTaskId(ref.taskId);
    } catch (err) {
      setSubmitError(errorMessage(err));
    } finally {
      setSubmitting(false);
    }
  }

  if (taskId && many) return <LaunchManyProgress headingId={headingId} task={task} taskId={taskId} onBack={() => setTaskId(undefined)} onClose={onClose} />;
  if (taskId) {
    const steps = stepStates(task);
    const finished = task && !['queued', 'running'].includes(task.state);
    return (
      <Modal labelledBy={headingId} onClose={onClose} className="launch">
        <h2 id={headingId}>Launching {name}</h2>
        <ol className="steps" aria-label="Launch steps">
          {steps.map((s) => (
            <li key={s.name} className={`step step-${s.state}`} aria-label={`${s.label}: ${s.state}`}>
              <span className="step-mark" aria-hidden="true">{STEP_MARK[s.state]}</span>
              <span className="step-label">{s.label}</span>
              <span className="step-name">{s.name}</span>
              {s.message && <span className="step-message">{s.message}</span>}
            </li>
          ))}
        </ol>
        {task?.progress && task.state === 'running' && (
          <progress aria-label={`Progress of ${task.step ?? 'the launch'}`} max={task.progress.total} value={task.progress.total === undefined ? undefined : task.progress.done} />
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
            <p className="meta">{task.error?.name}. What was created has been removed unless the message says otherwise. Fix the cause and launch again.</p>
          </div>
        )}
        <div className="dialog-actions">
          {task?.state === 'succeeded' && (
            <button type="button" onClick={() => void copyProxyUrl(name)}>
              Copy URL
            </button>
          )}
          {(task?.state === 'failed' || task?.state === 'cancelled') && (
            // The form comes back as it was: fix the cause and launch again.
            <button type="button" onClick={() => setTaskId(undefined)}>
              Back to the form
            </button>
          )}
          {task?.cancellable && !finished && (
            <button type="button" className="danger" onClick={() => void cancel(taskId)}>
              Cancel launch
            </button>
          )}
          <button type="button" autoFocus onClick={onClose}>
            {finished ? 'Close' : 'Close (keeps running in Tasks)'}
          </button>
        </div>
      </Modal>
    );
  }

  return (
    <Modal labelledBy={headingId} onClose={onClose} className="launch">
      <form onSubmit={(e) => void submit(e)} noValidate>
        <h2 id={headingId}>Launch a proxy</h2>
        <Field id={ids.name} label="Name" error={errors.name} hint={many ? 'A pattern with {n}, e.g. web-{n}.' : 'A lowercase DNS label, e.g. proxy-eu-1.'}>
          <input
            id={ids.name}
            autoFocus
            autoComplete="off"
            spellCheck={false}
            value={name}
            aria-invalid={errors.name ? true : undefined}
            aria-describedby={errors.name ? `${ids.name}-error` : `${ids.name}-hint`}
            onChange={(e) => {
              setName(e.target.value);
              setTouched(true);
            }}
          />
        </Field>
        <Field id={ids.count} label="How many" error={checked.count} hint={`1 to ${LAUNCH_MANY_MAX}. Above 1 the name needs {n}, which becomes 1, 2, 3…`}>
          <input id={ids.count} inputMode="numeric" value={count} aria-invalid={checked.count ? true : undefined} aria-describedby={checked.count ? `${ids.count}-error` : `${ids.count}-hint`} onChange={(e) => setCount(e.target.value)} />
        </Field>
        {many && (
          <Field id={ids.placement} label="Placement" hint="Spread: one per host first, then by free memory. Pack: fill the host with the most free memory first. Or the hosts you list, in turn.">
            <select id={ids.placement} value={placement} onChange={(e) => setPlacement(e.target.value === 'pack' ? 'pack' : e.target.value === 'hosts' ? 'hosts' : 'spread')} aria-describedby={`${ids.placement}-hint`}>
              <option value="spread">Spread over the hosts</option>
              <option value="pack">Pack onto as few hosts as possible</option>
              <option value="hosts">These hosts, in turn</option>
            </select>
          </Field>
        )}
        {many && placement === 'hosts' && (
          <Field id={ids.hostList} label="Hosts, in turn" error={strategyError} hint={`Host names separated by commas (${hosts.map((h) => h.name).join(', ')}).`}>
            <input id={ids.hostList} value={hostList} spellCheck={false} aria-invalid={strategyError ? true : undefined} aria-describedby={strategyError ? `${ids.hostList}-error` : `${ids.hostList}-hint`} onChange={(e) => setHostList(e.target.value)} />
          </Field>
        )}
        {!many && <Field id={ids.host} label="Host" {...(hostHint ? { hint: hostHint } : {})}>
          <select id={ids.host} value={host} onChange={(e) => setHost(e.target.value)} aria-describedby={hostHint ? `${ids.host}-hint` : undefined}>
            <option value="">Automatic</option>
            {hosts.map((h) => (
              <option key={h.name} value={h.name}>
                {h.name} ({h.state})
              </option>
            ))}
          </select>
        </Field>}
        <Field id={ids.type} label="Machine type">
          <select id={ids.type} value={machineType} onChange={(e) => setMachineType(e.target.value)}>
            <option value="">Default{machineTypes.find((m) => m.isDefault) ? ` (${machineTypes.find((m) => m.isDefault)!.name})` : ''}</option>
            {machineTypes.map((m) => (
              <option key={m.name} value={m.name}>
                {m.name}: {m.vcpus} vCPU, {m.memoryMiB} MiB, {m.diskGiB} GiB
              </option>
            ))}
          </select>
        </Field>
        <Field id={ids.image} label="Image">
          <select id={ids.image} value={image} onChange={(e) => setImage(e.target.value)}>
            <option value="">Default{images.find((i) => i.isDefault) ? ` (${images.find((i) => i.isDefault)!.name})` : ''}</option>
            {images.map((i) => (
              <option key={i.name} value={i.name}>
                {i.name} ({i.cache === 'cached' ? 'cached' : 'downloads on launch'})
              </option>
            ))}
          </select>
        </Field>
        <Field id={ids.kind} label="Kind" hint="HTTP (tinyproxy) or SOCKS5 (Dante), both with a username and password.">
          <select id={ids.kind} value={kind} onChange={(e) => setKind(e.target.value === 'socks5' ? 'socks5' : 'http')} aria-describedby={`${ids.kind}-hint`}>
            <option value="http">HTTP</option>
            <option value="socks5">SOCKS5</option>
          </select>
        </Field>
        <Field id={ids.port} label="Port" error={errors.port} hint={`Empty: the default (${defaultPort}).`}>
          <input
            id={ids.port}
            inputMode="numeric"
            value={port}
            placeholder={String(defaultPort)}
            aria-invalid={errors.port ? true : undefined}
            aria-describedby={errors.port ? `${ids.port}-error` : `${ids.port}-hint`}
            onChange={(e) => setPort(e.target.value.trim())}
          />
        </Field>
        <Field id={ids.allow} label="Allowed clients (CIDRs)" error={errors.allow} hint="Addresses or CIDR blocks, separated by commas or spaces. Empty: loopback and private ranges.">
          <textarea
            id={ids.allow}
            rows={2}
            value={allow}
            spellCheck={false}
            aria-invalid={errors.allow ? true : undefined}
            aria-describedby={errors.allow ? `${ids.allow}-error` : `${ids.allow}-hint`}
            onChange={(e) => setAllow(e.target.value)}
          />
        </Field>
        <Field id={ids.labels} label="Labels" error={errors.labels} hint="key=value pairs, separated by spaces or commas (env=prod team=web). Editable later.">
          <input
            id={ids.labels}
            value={labels}
            spellCheck={false}
            placeholder="env=prod"
            aria-invalid={errors.labels ? true : undefined}
            aria-describedby={errors.labels ? `${ids.labels}-error` : `${ids.labels}-hint`}
            onChange={(e) => setLabels(e.target.value)}
          />
        </Field>
        <Field id={ids.ttl} label="Expires after" error={errors.ttl} hint="Optional: 8h, 2d, or a date and time (2026-12-31T18:00:00Z). It is then deleted. Empty: never.">
          <input
            id={ids.ttl}
            value={ttl}
            spellCheck={false}
            aria-invalid={errors.ttl ? true : undefined}
            aria-describedby={errors.ttl ? `${ids.ttl}-error` : `${ids.ttl}-hint`}
            onChange={(e) => setTtl(e.target.value.trim())}
          />
        </Field>
        {submitError && (
          <p role="alert" className="error">
            The launch was refused: {submitError}
          </p>
        )}
        <div className="dialog-actions">
          <button type="button" onClick={onClose}>Cancel</button>
          <button type="submit" className="primary" disabled={submitting}>
            {submitting ? 'Launching…' : expanded && 'names' in expanded ? `Launch ${expanded.names.length}` : 'Launch'}
          </button>
        </div>
      </form>
    </Modal>
  );
}

const ROW_MARK: Record<'running' | 'done' | 'failed', string> = { running: '◐', done: '✓', failed: '✕' };

/**
 * A launch of many, as its one task reports it: a row per proxy (the task's steps, one per
 * name) with where it is, its outcome, and cancel (only the unfinished ones roll back).
 */
function LaunchManyProgress({ headingId, task, taskId, onBack, onClose }: { headingId: string; task: Task | undefined; taskId: string; onBack: () => void; onClose: () => void }) {
  const cancel = useTasksStore((s) => s.cancel);
  const finished = task && !['queued', 'running'].includes(task.state);
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
              <span className="step-mark" aria-hidden="true">{state === 'cancelled' ? '–' : ROW_MARK[r.state]}</span>
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
        {task?.state === 'cancelled' && <p>Cancelled: {ok} finished and kept; the launches not finished were removed.</p>}
      </div>
      {task?.state === 'failed' && (
        <div role="alert" className="failure">
          <h3>{ok} of {rows.length} launched</h3>
          <p className="error">{task.error?.message ?? 'no message'}</p>
          <p className="meta">The ones that worked are kept; each failed one removed what it had created.</p>
        </div>
      )}
      <div className="dialog-actions">
        {(task?.state === 'failed' || task?.state === 'cancelled') && (
          <button type="button" onClick={onBack}>Back to the form</button>
        )}
        {task?.cancellable && !finished && (
          <button type="button" className="danger" onClick={() => void cancel(taskId)}>Cancel the unfinished</button>
        )}
        <button type="button" autoFocus onClick={onClose}>{finished ? 'Close' : 'Close (keeps running in Tasks)'}</button>
      </div>
    </Modal>
  );
}
