/**
 * The Launch dialog's one form object (shared/launch-dialog-form.ts): problems grouped by
 * field in the shared checks' words, and the request a valid form makes, one proxy or many.
 */
import { describe, expect, it } from 'vitest';
import {
  EMPTY_LAUNCH_FORM,
  type LaunchDialogForm,
  checkLaunchForm,
  launchesMany,
} from '../../../shared/launch-dialog-form.js';
import { LAUNCH_MANY_MAX } from '../../../shared/launch-many.js';

const form = (over: Partial<LaunchDialogForm>): LaunchDialogForm => ({ ...EMPTY_LAUNCH_FORM, ...over });
const NOW = Date.parse('2026-12-02T10:00:00Z');

describe('launch dialog form', () => {
  it("one proxy: each field's first problem under its field, and no request until none is left", () => {
    const bad = checkLaunchForm(form({ name: 'Web', port: '70000', allow: 'nope', labels: '=x', ttl: 'soon' }), NOW);
    expect(Object.keys(bad.problems).sort()).toEqual(['allow', 'labels', 'name', 'port', 'ttl']);
    expect(bad.request).toBeUndefined();
    expect(checkLaunchForm(EMPTY_LAUNCH_FORM, NOW).problems).toEqual({ name: 'A name is required.' });
    const ok = checkLaunchForm(
      form({ name: 'web-1', host: 'edge-a', kind: 'socks5', port: '1080', labels: 'env=prod', ttl: '8h' }),
      NOW,
    );
    expect(ok).toEqual({
      problems: {},
      request: {
        one: {
          name: 'web-1',
          host: 'edge-a',
          kind: 'socks5',
          port: 1080,
          labels: { env: 'prod' },
          expiresAt: '2026-12-02T18:00:00.000Z',
        },
      },
    });
  });

  it('many: the count, the pattern and the host list are judged as the CLI judges them', () => {
    expect(launchesMany(form({ count: ' 1 ' }))).toBe(false);
    expect(checkLaunchForm(form({ name: 'web-{n}', count: String(LAUNCH_MANY_MAX + 1) }), NOW).problems.count).toMatch(
      `from 1 to ${LAUNCH_MANY_MAX}`,
    );
    expect(checkLaunchForm(form({ name: 'web', count: '3' }), NOW).problems.name).toMatch('needs {n}');
    const hosts = checkLaunchForm(form({ name: 'web-{n}', count: '2', placement: 'hosts', hostList: 'edge-a,,' }), NOW);
    expect(hosts.problems).toEqual({ hostList: expect.stringContaining('comma-separated list of host names') });
    // The names are known (the button says "Launch 2") even while the host list is wrong.
    expect(hosts.names).toEqual(['web-1', 'web-2']);
    expect(hosts.request).toBeUndefined();
  });

  it('many: one spec per name, without the host picked for one (placement decides), and the strategy', () => {
    const ok = checkLaunchForm(
      form({
        name: 'web-{n}',
        count: '2',
        host: 'edge-a',
        placement: 'hosts',
        hostList: 'edge-a, edge-b',
        port: '3129',
      }),
      NOW,
    );
    expect(ok.request).toEqual({
      many: {
        specs: [
          { name: 'web-1', port: 3129 },
          { name: 'web-2', port: 3129 },
        ],
        strategy: { kind: 'hosts', hosts: ['edge-a', 'edge-b'] },
      },
    });
    expect(checkLaunchForm(form({ name: 'web-{n}', count: '2', placement: 'pack' }), NOW).request).toEqual({
      many: { specs: [{ name: 'web-1' }, { name: 'web-2' }], strategy: { kind: 'pack' } },
    });
  });
});
