/** Quitting is bounded (quit-deadline.ts); a failed load shows a page saying so (load-failure.ts). */
import { describe, expect, it, vi } from 'vitest';
import { loadFailureHtml, loadFailureUrl } from '../../../electron/shell/load-failure.js';
import { closeWithin } from '../../../electron/shell/quit-deadline.js';

describe('quitting', () => {
  it('waits for the services when they close in time', async () => {
    const problems = vi.fn();
    await expect(closeWithin(() => new Promise((r) => setTimeout(r, 20)), 1000, problems)).resolves.toBe('closed');
    expect(problems).not.toHaveBeenCalled();
  });

  it('exits after the deadline when a task never finishes', async () => {
    const problems = vi.fn();
    const started = Date.now();
    await expect(closeWithin(() => new Promise(() => undefined), 50, problems)).resolves.toBe('timed-out');
    expect(Date.now() - started).toBeLessThan(1000);
    expect(problems).toHaveBeenCalledWith('timed-out');
  });

  it('reports a failing close and still goes on', async () => {
    const problems = vi.fn();
    await expect(closeWithin(() => Promise.reject(new Error('boom')), 1000, problems)).resolves.toBe('failed');
    expect(problems).toHaveBeenCalledWith('failed', expect.objectContaining({ message: 'boom' }));
    await expect(
      closeWithin(
        () => {
          throw new Error('sync');
        },
        1000,
        problems,
      ),
    ).resolves.toBe('failed');
  });
});

describe('a failed load', () => {
  it('says what failed and where the log is, with everything escaped and no script', () => {
    const html = loadFailureHtml(
      { code: -6, description: 'ERR_FILE_NOT_FOUND', url: 'app://egress-desk/<script>alert(1)</script>' },
      '/home/a & b/logs',
    );
    expect(html).toContain('ERR_FILE_NOT_FOUND (-6)');
    expect(html).toContain('/home/a &#38; b/logs');
    expect(html).not.toContain('<script>');
    expect(html).toContain("default-src 'none'");
    const url = loadFailureUrl({ code: -6, description: 'x', url: 'app://egress-desk/index.html' }, '/logs');
    expect(url.startsWith('data:text/html;charset=utf-8,')).toBe(true);
    expect(decodeURIComponent(url.slice(url.indexOf(',') + 1))).toBe(
      loadFailureHtml({ code: -6, description: 'x', url: 'app://egress-desk/index.html' }, '/logs'),
    );
  });
});
