import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY } from '../../../shared/csp.js';

describe('Content-Security-Policy', () => {
  it('the renderer page carries the same policy (less what a meta tag cannot set)', () => {
    const html = readFileSync(new URL('../../../renderer/index.html', import.meta.url), 'utf8');
    const meta = /<meta http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1];
    const expected = CONTENT_SECURITY_POLICY.split('; ').filter((d) => !d.startsWith('frame-ancestors'));
    expect(meta?.split('; ')).toEqual(expected);
  });

  it('allows nothing remote and no inline script', () => {
    expect(CONTENT_SECURITY_POLICY).toContain("default-src 'none'");
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
  });
});
