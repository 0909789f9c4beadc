// What the backend logs from its events and failed calls (electron/ipc/backend-log.ts).
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { appEventLogger, loggedRouter } from '../../../electron/ipc/backend-log.js';
import { createRouter } from '../../../electron/ipc/router.js';
import type { HostStatus } from '../../../shared/hosts.js';
import type { Task } from '../../../shared/tasks.js';

function capture(): { log: pino.Logger; lines: Array<Record<string, unknown> & { msg: string; level: number }> } {
  const lines: Array<Record<string, unknown> & { msg: string; level: number }> = [];
  const log = pino(
    { level: 'debug' },
    { write: (line: string) => void lines.push(JSON.parse(line) as (typeof lines)[number]) },
  );
  return { log, lines };
}

const host = (state: HostStatus['state'], message?: string): HostStatus => ({
  name: 'far',
  address: 'far.example',
  via: 'ssh://u@far.example:22',
  state,
  ...(message ? { message } : {}),
});

const task = (state: Task['state'], extra: Partial<Task> = {}): Task => ({
  id: 't1',
  title: 'Launch web-1',
  kind: 'proxies:launch',
  target: 'web-1',
  state,
  steps: [],
  cancellable: true,
  created: '2026-12-02T10:00:00.000Z',
  started: '2026-12-02T10:00:00.000Z',
  result: { url: 'http://alice:hunter2@10.0.0.2:3128' },
  ...extra,
});

describe('backend log: events', () => {
  it('logs a host once per state change, not once per refresh; errors as warnings', () => {
    const { log, lines } = capture();
    const sink = appEventLogger(log);
    for (const s of [
      host('connecting'),
      host('connecting'),
      host('connected'),
      host('connected'),
      host('error', 'refused'),
      host('error', 'refused'),
      host('error', 'timed out'),
    ])
      sink('host:status', s);
    expect(lines.map((l) => [l.msg, l.reason])).toEqual([
      ['host far: connecting', undefined],
      ['host far: connected', undefined],
      ['host far: error', 'refused'],
      ['host far: error', 'timed out'],
    ]);
    expect(lines.filter((l) => l.level === 40)).toHaveLength(2);
  });

  it('logs ssh_config warnings once per host and content, as warnings', () => {
    const { log, lines } = capture();
    const sink = appEventLogger(log);
    const warned = (state: HostStatus['state'], warnings: string[]) => ({ ...host(state), warnings });
    const exec = '~/.ssh/config line 3: Match exec "true" was not run';
    for (const s of [
      warned('connecting', [exec]),
      warned('connected', [exec]),
      warned('connected', [exec, 'other']),
      host('connected'),
    ])
      sink('host:status', s);
    const warnings = lines.filter((l) => l.msg.includes('ssh_config'));
    expect(warnings.map((l) => [l.level, l.msg])).toEqual([
      [40, `host far: ssh_config: ${exec}`],
      [40, `host far: ssh_config: ${exec}; other`],
    ]);
    expect(warnings[1]).toMatchObject({ host: 'far', warnings: [exec, 'other'] });
  });

  it('logs a task when it starts and once when it ends, without its result', () => {
    const { log, lines } = capture();
    const sink = appEventLogger(log);
    sink('task:update', task('queued'));
    sink('task:update', task('running', { step: 'image' }));
    sink('task:update', task('running', { step: 'upload', progress: { done: 1, total: 2 } }));
    const failed = task('failed', {
      finished: '2026-12-02T10:00:02.500Z',
      error: { name: 'UploadError', message: 'the pool is full', step: 'upload' },
    });
    sink('task:update', failed);
    sink('task:update', failed);
    expect(lines.map((l) => l.msg)).toEqual(['task started: Launch web-1', 'task failed: Launch web-1']);
    expect(lines[1]).toMatchObject({
      task: 't1',
      kind: 'proxies:launch',
      target: 'web-1',
      state: 'failed',
      ms: 2500,
      error: { name: 'UploadError', message: 'the pool is full', step: 'upload' },
    });
    expect(JSON.stringify(lines)).not.toContain('hunter2');
  });

  it('ignores proxy changes (the table, not the log)', () => {
    const { log, lines } = capture();
    appEventLogger(log)('proxy:changed', { host: 'far', domain: 'ep-web-1', event: 'STARTED' } as never);
    expect(lines).toEqual([]);
  });
});

describe('backend log: calls', () => {
  it('logs a failed call by channel and error, never its input', async () => {
    const { log, lines } = capture();
    // Every handler fails as a service would.
    const logged = loggedRouter(
      createRouter(
        new Proxy({} as never, { get: () => () => Promise.reject(new Error('the host far is not connected')) }),
      ),
      log,
    );
    const spec = { name: 'web-1', credentials: { username: 'alice', password: 'hunter2' } };
    await expect(logged.invoke('proxies:launch', spec)).resolves.toMatchObject({ ok: false });
    await expect(logged.invoke('proxies:launch', { ...spec, colour: 'red' })).resolves.toMatchObject({
      ok: false,
      error: { name: 'ValidationError' },
    });
    expect(lines.map((l) => [l.level, l.msg, l.channel])).toEqual([
      [40, 'call failed: proxies:launch', 'proxies:launch'],
      [20, 'call refused: invalid input', 'proxies:launch'],
    ]);
    expect(JSON.stringify(lines)).not.toContain('hunter2');
  });
});
