/**
 * The Launch dialog: one form object (shared/launch-dialog-form.ts), validated inline with
 * the contract's own rules and grouped by field, its text fields from one table; then, once
 * `proxies:launch` (or `launchMany`) answers with a task, that task's progress (LaunchProgress.tsx).
 */
import { type FormEvent, useEffect, useId, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { DEFAULTS } from '../../shared/config.js';
import {
  EMPTY_LAUNCH_FORM,
  type LaunchDialogField,
  type LaunchDialogForm,
  type Placement,
  checkLaunchForm,
  launchesMany,
} from '../../shared/launch-dialog-form.js';
import { LAUNCH_MANY_MAX } from '../../shared/launch-many.js';
import { SOCKS5_DEFAULT_PORT } from '../../shared/proxy.js';
import { errorMessage } from '../format.js';
import { useAppConfigStore } from '../stores/app-config-store.js';
import { useHostsStore } from '../stores/hosts-store.js';
import { launchProxies, launchProxy, placeFor } from '../stores/proxy-actions.js';
import { useTasksStore } from '../stores/tasks-store.js';
import { Modal } from './ConfirmDialog.js';
import { Field } from './Field.js';
import { LaunchManyProgress, LaunchProgress } from './LaunchProgress.js';
import { Refusal } from './Refusal.js';

/** The free-text fields after the choices, in the order shown. */
interface TextField {
  field: Extract<LaunchDialogField, 'port' | 'allow' | 'labels' | 'ttl'> & keyof LaunchDialogForm;
  label: string;
  hint: (defaultPort: number) => string;
  placeholder?: (defaultPort: number) => string;
  numeric?: boolean;
  /** A textarea of two rows. */
  rows?: number;
  /** Spaces around the value mean nothing: dropped as typed. */
  trim?: boolean;
}

const TEXT_FIELDS: readonly TextField[] = [
  {
    field: 'port',
    label: 'Port',
    hint: (p) => `Empty: the default (${p}).`,
    placeholder: (p) => String(p),
    numeric: true,
    trim: true,
  },
  {
    field: 'allow',
    label: 'Allowed clients (CIDRs)',
    hint: () => 'Addresses or CIDR blocks, separated by commas or spaces. Empty: loopback and private ranges.',
    rows: 2,
  },
  {
    field: 'labels',
    label: 'Labels',
    hint: () => 'key=value pairs, separated by spaces or commas (env=prod team=web). Editable later.',
    placeholder: () => 'env=prod',
  },
  {
    field: 'ttl',
    label: 'Expires after',
    hint: () => 'Optional: 8h, 2d, or a date and time (2026-12-31T18:00:00Z). It is then deleted. Empty: never.',
    trim: true,
  },
];

/** What "Automatic" would choose now, and why: asked again when the machine type or the connected hosts change (asking never connects a host). */
function useAutomaticHint(host: string, machineType: string): string | undefined {
  const connectedHosts = useHostsStore((s) =>
    s.hosts
      .filter((h) => h.state === 'connected')
      .map((h) => h.name)
      .join(','),
  );
  const [auto, setAuto] = useState<{ ok: true; reason: string } | { ok: false; message: string }>();
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
  if (host) return undefined;
  if (!auto) return 'Automatic picks the connected host with the most free memory.';
  return auto.ok ? `Automatic now: ${auto.reason}.` : `Automatic cannot place it now: ${auto.message}`;
}

export function LaunchDialog({ onClose }: { onClose: () => void }) {
  const base = useId();
  const headingId = `${base}-h`;
  const id = (field: keyof LaunchDialogForm) => `${base}-${field}`;
  const hosts = useHostsStore((s) => s.hosts);
  const { machineTypes, images, state } = useAppConfigStore(
    useShallow((s) => ({ machineTypes: s.machineTypes, images: s.images, state: s.state })),
  );
  const [form, setForm] = useState<LaunchDialogForm>(EMPTY_LAUNCH_FORM);
  /** The name's problem waits for the first keystroke there (or a submit): an empty form opens without an error. */
  const [touched, setTouched] = useState(false);
  const [submitError, setSubmitError] = useState<string | undefined>();
  const [submitting, setSubmitting] = useState(false);
  const [taskId, setTaskId] = useState<string | undefined>();
  const task = useTasksStore((s) => (taskId ? s.tasks[taskId] : undefined));
  const hostHint = useAutomaticHint(form.host, form.machineType);

  const many = launchesMany(form);
  const check = checkLaunchForm(form);
  const problems = { ...check.problems, name: touched ? check.problems.name : undefined };
  const defaultPort =
    form.kind === 'socks5' ? SOCKS5_DEFAULT_PORT : (state?.config?.kvm?.proxy?.port ?? DEFAULTS.proxyPort);
  const change = <K extends keyof LaunchDialogForm>(field: K, value: LaunchDialogForm[K]) =>
    setForm((f) => ({ ...f, [field]: value }));

  async function submit(e: FormEvent) {
    e.preventDefault();
    setTouched(true);
    const request = check.request;
    if (!request) return;
    setSubmitting(true);
    setSubmitError(undefined);
    try {
      const ref = 'many' in request ? await launchProxies(request.many) : await launchProxy(request.one);
      setTaskId(ref.taskId);
    } catch (err) {
      setSubmitError(errorMessage(err));
    } finally {
      setSubmitting(false);
    }
  }

  const back = () => setTaskId(undefined);
  if (taskId && many)
    return <LaunchManyProgress headingId={headingId} task={task} taskId={taskId} onBack={back} onClose={onClose} />;
  if (taskId)
    return (
      <LaunchProgress
        headingId={headingId}
        name={form.name}
        task={task}
        taskId={taskId}
        onBack={back}
        onClose={onClose}
      />
    );

  const defaultOf = <T extends { name: string; isDefault: boolean }>(list: readonly T[]) => {
    const d = list.find((x) => x.isDefault);
    return d ? ` (${d.name})` : '';
  };
  return (
    <Modal labelledBy={headingId} onClose={onClose} className="launch">
      <form onSubmit={(e) => void submit(e)} noValidate>
        <h2 id={headingId}>Launch a proxy</h2>
        <Field
          id={id('name')}
          label="Name"
          error={problems.name}
          hint={many ? 'A pattern with {n}, e.g. web-{n}.' : 'A lowercase DNS label, e.g. proxy-eu-1.'}
        >
          {(c) => (
            <input
              {...c}
              autoFocus
              autoComplete="off"
              spellCheck={false}
              value={form.name}
              onChange={(e) => {
                change('name', e.target.value);
                setTouched(true);
              }}
            />
          )}
        </Field>
        <Field
          id={id('count')}
          label="How many"
          error={problems.count}
          hint={`1 to ${LAUNCH_MANY_MAX}. Above 1 the name needs {n}, which becomes 1, 2, 3…`}
        >
          {(c) => (
            <input {...c} inputMode="numeric" value={form.count} onChange={(e) => change('count', e.target.value)} />
          )}
        </Field>
        {many && (
          <Field
            id={id('placement')}
            label="Placement"
            hint="Spread: one per host first, then by free memory. Pack: fill the host with the most free memory first. Or the hosts you list, in turn."
          >
            {(c) => (
              <select {...c} value={form.placement} onChange={(e) => change('placement', e.target.value as Placement)}>
                <option value="spread">Spread over the hosts</option>
                <option value="pack">Pack onto as few hosts as possible</option>
                <option value="hosts">These hosts, in turn</option>
              </select>
            )}
          </Field>
        )}
        {many && form.placement === 'hosts' && (
          <Field
            id={id('hostList')}
            label="Hosts, in turn"
            error={problems.hostList}
            hint={`Host names separated by commas (${hosts.map((h) => h.name).join(', ')}).`}
          >
            {(c) => (
              <input
                {...c}
                value={form.hostList}
                spellCheck={false}
                onChange={(e) => change('hostList', e.target.value)}
              />
            )}
          </Field>
        )}
        {!many && (
          <Field id={id('host')} label="Host" hint={hostHint}>
            {(c) => (
              <select {...c} value={form.host} onChange={(e) => change('host', e.target.value)}>
                <option value="">Automatic</option>
                {hosts.map((h) => (
                  <option key={h.name} value={h.name}>
                    {h.name} ({h.state})
                  </option>
                ))}
              </select>
            )}
          </Field>
        )}
        <Field id={id('machineType')} label="Machine type">
          {(c) => (
            <select {...c} value={form.machineType} onChange={(e) => change('machineType', e.target.value)}>
              <option value="">Default{defaultOf(machineTypes)}</option>
              {machineTypes.map((m) => (
                <option key={m.name} value={m.name}>
                  {m.name}: {m.vcpus} vCPU, {m.memoryMiB} MiB, {m.diskGiB} GiB
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field id={id('image')} label="Image">
          {(c) => (
            <select {...c} value={form.image} onChange={(e) => change('image', e.target.value)}>
              <option value="">Default{defaultOf(images)}</option>
              {images.map((i) => (
                <option key={i.name} value={i.name}>
                  {i.name} ({i.cache === 'cached' ? 'cached' : 'downloads on launch'})
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field
          id={id('kind')}
          label="Kind"
          hint="HTTP (tinyproxy) or SOCKS5 (Dante), both with a username and password."
        >
          {(c) => (
            <select
              {...c}
              value={form.kind}
              onChange={(e) => change('kind', e.target.value === 'socks5' ? 'socks5' : 'http')}
            >
              <option value="http">HTTP</option>
              <option value="socks5">SOCKS5</option>
            </select>
          )}
        </Field>
        {TEXT_FIELDS.map((t) => (
          <Field key={t.field} id={id(t.field)} label={t.label} error={problems[t.field]} hint={t.hint(defaultPort)}>
            {(c) => {
              const props = {
                ...c,
                value: form[t.field],
                spellCheck: false,
                ...(t.placeholder ? { placeholder: t.placeholder(defaultPort) } : {}),
              };
              const set = (value: string) => change(t.field, t.trim ? value.trim() : value);
              return t.rows ? (
                <textarea {...props} rows={t.rows} onChange={(e) => set(e.target.value)} />
              ) : (
                <input
                  {...props}
                  {...(t.numeric ? { inputMode: 'numeric' as const } : {})}
                  onChange={(e) => set(e.target.value)}
                />
              );
            }}
          </Field>
        ))}
        <Refusal what="The launch was refused" error={submitError} />
        <div className="dialog-actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={submitting}>
            {submitting ? 'Launching…' : many && check.names ? `Launch ${check.names.length}` : 'Launch'}
          </button>
        </div>
      </form>
    </Modal>
  );
}
