/** axe-core over a page of the renderer, as the accessibility tests run it (a11y.test.ts and others). */
import axe from 'axe-core';
import type { Page } from 'playwright-core';

/** One finding per rule, with the elements it names: what a person fixing it needs. */
export interface Finding {
  rule: string;
  impact: string;
  help: string;
  targets: string[];
}

/**
 * Runs axe over the page as it is now. Its source goes in through page.evaluate (the
 * DevTools protocol, which the page's CSP does not govern): page.addScriptTag({ content })
 * would add an inline <script>, which the app's `script-src 'self'` (shared/csp.ts)
 * refuses and reports as a console error.
 */
export async function audit(page: Page): Promise<Finding[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axe.source);
  return page.evaluate(async () => {
    const engine = (window as unknown as { axe: typeof axe }).axe;
    const result = await engine.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] },
      rules: { 'label-content-name-mismatch': { enabled: true } },
    });
    return result.violations.map((v) => ({
      rule: v.id,
      impact: v.impact ?? '',
      help: v.help,
      targets: v.nodes.map((n) => n.target.join(' ')),
    }));
  });
}
