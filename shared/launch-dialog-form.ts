/**
 * The Launch dialog's whole form, one object: the fields of one proxy (launch-form.ts) plus
 * how many and where they go (launch-many.ts, the CLI's `--count` and `--strategy`), its
 * problems by field in the shared checks' words, and the request a valid form makes.
 */
import { type LaunchForm, formToSpec, launchFormErrors } from './launch-form.js';
import { type Strategy, expandNames, parseStrategy } from './launch-many.js';
import type { ProxySpec } from './proxy.js';

/** Where the proxies of a launch of many go: the strategies, or the hosts listed in turn. */
export type Placement = 'spread' | 'pack' | 'hosts';

export interface LaunchDialogForm extends Required<LaunchForm> {
  /** How many, as typed ("1": one proxy, the name as it is). */
  count: string;
  placement: Placement;
  /** With placement `hosts`: host names separated by commas. */
  hostList: string;
}

export type LaunchDialogField = 'name' | 'count' | 'hostList' | 'port' | 'allow' | 'labels' | 'ttl';

export const EMPTY_LAUNCH_FORM: LaunchDialogForm = {
  name: '',
  count: '1',
  placement: 'spread',
  hostList: '',
  host: '',
  machineType: '',
  image: '',
  port: '',
  kind: 'http',
  allow: '',
  labels: '',
  ttl: '',
};

/** What a valid form asks for: one proxy, or several placed by a strategy. */
export type LaunchRequest = { one: ProxySpec } | { many: { specs: ProxySpec[]; strategy: Strategy } };

export interface LaunchCheck {
  /** The first problem of each field; empty when the form can be sent. */
  problems: Partial<Record<LaunchDialogField, string>>;
  /** The names a launch of many gives (absent for one proxy, or while the count or pattern is wrong). */
  names?: string[];
  /** Present exactly when there is no problem. */
  request?: LaunchRequest;
}

/** Above 1, the dialog launches many (the name is then a pattern with {n}). */
export const launchesMany = (form: LaunchDialogForm): boolean => form.count.trim() !== '1';

/** Checks the form as the backend would, and builds its request when it is valid. */
export function checkLaunchForm(form: LaunchDialogForm, now = Date.now()): LaunchCheck {
  const problems: LaunchCheck['problems'] = {};
  const add = (field: LaunchDialogField, message: string | undefined) => {
    if (message !== undefined && problems[field] === undefined) problems[field] = message;
  };
  if (!launchesMany(form)) {
    for (const [field, message] of Object.entries(launchFormErrors(form, now)))
      add(field as LaunchDialogField, message);
    return Object.keys(problems).length ? { problems } : { problems, request: { one: formToSpec(form, now) } };
  }
  // Many: the pattern is judged by the names it gives, not as a name itself.
  const count = form.count.trim();
  const expanded = expandNames(form.name, /^\d+$/.test(count) ? Number(count) : NaN);
  if ('problem' in expanded) add(expanded.problem.field, expanded.problem.message);
  const strategy = form.placement === 'hosts' ? parseStrategy(form.hostList) : { kind: form.placement };
  if ('problem' in strategy) add('hostList', strategy.problem.message);
  for (const [field, message] of Object.entries(launchFormErrors({ ...form, name: 'many' }, now)))
    add(field as LaunchDialogField, message);
  const names = 'names' in expanded ? expanded.names : undefined;
  if (Object.keys(problems).length || !names || 'problem' in strategy) return { problems, ...(names ? { names } : {}) };
  // Placement decides each proxy's host: a host picked before the count went above 1 is not sent.
  const spec = formToSpec({ ...form, host: '' }, now);
  return { problems, names, request: { many: { specs: names.map((name) => ({ ...spec, name })), strategy } } };
}
