/** The Proxies table's filter (`env=prod`, "mine") and the owners named before acting on someone else's proxies; the Launch form's labels and expiry. */
import { describe, expect, it } from 'vitest';
import { groupRows, labelEdit, labelKeys, labelsText, othersIn, passesFilter } from '../../../renderer/proxy-fleet.js';
import { formToSpec, labelsError, launchFormErrors, parseLabels } from '../../../shared/launch-form.js';
import { sampleRecordView } from '../../support/proxy-samples.js';

const me = { user: 'alice', workstation: 'laptop' };
const bob = { user: 'bob', workstation: 'ws-2' };
const prod = sampleRecordView({ name: 'web-1', labels: { env: 'prod', team: 'web' }, launchedBy: me });
const staging = sampleRecordView({ name: 'web-2', labels: { env: 'production' }, launchedBy: bob });
const old = sampleRecordView({ name: 'old-1' });

describe('the table filter', () => {
  it('key=value matches a label exactly; plain words search the text, labels and owner included; all must match', () => {
    const shown = (filter: string, mine = false) =>
      [prod, staging, old].filter((p) => passesFilter(p, filter, me, mine)).map((p) => p.name);
    expect(shown('env=prod')).toEqual(['web-1']);
    expect(shown('env=prod team=web')).toEqual(['web-1']);
    expect(shown('env=prod team=db')).toEqual([]);
    expect(shown('production')).toEqual(['web-2']);
    expect(shown('bob@')).toEqual(['web-2']);
    expect(shown('WEB')).toEqual(['web-1', 'web-2']);
    expect(shown('', true)).toEqual(['web-1']);
    expect(shown('')).toEqual(['web-1', 'web-2', 'old-1']);
  });

  it("names the owner of each proxy in a selection that is not yours; unrecorded ones are nobody's", () => {
    expect(othersIn([prod, staging, old], me)).toEqual([{ name: 'web-2', owner: 'bob@ws-2' }]);
    expect(othersIn([prod, staging], undefined)).toEqual([]);
  });
});

describe('the Launch form', () => {
  const now = Date.parse('2026-12-03T08:00:00.000Z');
  const form = { name: 'p1', host: '', machineType: '', image: '', port: '', allow: '' };
  it('labels and expiry go into the request; empty fields are left out', () => {
    expect(formToSpec({ ...form, labels: 'env=prod, team=web', ttl: '8h' }, now)).toEqual({
      name: 'p1',
      labels: { env: 'prod', team: 'web' },
      expiresAt: '2026-12-03T16:00:00.000Z',
    });
    expect(formToSpec({ ...form, labels: '', ttl: '' }, now)).toEqual({ name: 'p1' });
  });

  it('says what is wrong with a label or an expiry before sending', () => {
    expect(launchFormErrors({ ...form, labels: 'env' }, now).labels).toMatch(/a label is key=value/);
    expect(launchFormErrors({ ...form, labels: 'Env=x' }, now).labels).toMatch(/label key/);
    expect(launchFormErrors({ ...form, ttl: 'soon' }, now).ttl).toMatch(/a duration/);
    expect(launchFormErrors({ ...form, ttl: '2020-01-01T00:00:00Z' }, now).ttl).toMatch(/in the past/);
    expect(launchFormErrors({ ...form, labels: 'env=prod', ttl: '2d' }, now)).toEqual({
      name: undefined,
      port: undefined,
      allow: undefined,
      labels: undefined,
      ttl: undefined,
    });
  });
});

describe('grouping the table by a label', () => {
  const db = sampleRecordView({ name: 'db-1', labels: { env: 'prod', team: 'db' } });
  const dev = sampleRecordView({ name: 'dev-1', labels: { env: 'dev' } });
  const shape = (rows: ReturnType<typeof groupRows>) =>
    rows.map((r) => (r.kind === 'group' ? `[${r.value ?? `no ${r.key}`}: ${r.count}]` : r.proxy.name));

  it('puts a header before each value, sorted, with its count, and the proxies without the key last; keeps the given order inside', () => {
    expect(shape(groupRows([prod, old, db, staging, dev], 'env'))).toEqual([
      '[dev: 1]',
      'dev-1',
      '[prod: 2]',
      'web-1',
      'db-1',
      '[production: 1]',
      'web-2',
      '[no env: 1]',
      'old-1',
    ]);
    expect(shape(groupRows([prod, old, db], 'team'))).toEqual([
      '[db: 1]',
      'db-1',
      '[web: 1]',
      'web-1',
      '[no team: 1]',
      'old-1',
    ]);
  });

  it('no key, or no rows: the rows as they are, no headers', () => {
    expect(shape(groupRows([old, prod], null))).toEqual(['old-1', 'web-1']);
    expect(groupRows([], 'env')).toEqual([]);
  });

  it('offers the label keys the fleet has, sorted', () => {
    expect(labelKeys([old, prod, dev])).toEqual(['env', 'team']);
    expect(labelKeys([old])).toEqual([]);
  });
});

describe('editing labels', () => {
  it('sends only what changed: new or changed pairs, and the keys taken out', () => {
    expect(labelEdit({ env: 'prod', team: 'web' }, { env: 'dev', team: 'web', tier: 'edge' })).toEqual({
      set: { env: 'dev', tier: 'edge' },
      remove: [],
    });
    expect(labelEdit({ env: 'prod', team: 'web' }, { env: 'prod' })).toEqual({ set: {}, remove: ['team'] });
    expect(labelEdit(undefined, {})).toEqual({ set: {}, remove: [] });
  });

  it("the editor text reads back as the same labels through the Launch form's parser", () => {
    const labels = { team: 'web', env: 'prod' };
    expect(labelsText(labels)).toBe('env=prod team=web');
    expect(parseLabels(labelsText(labels))).toEqual(labels);
    expect(labelsText(undefined)).toBe('');
    expect(labelsError('env=prod, Team=web')).toMatch(/label key/);
  });
});
