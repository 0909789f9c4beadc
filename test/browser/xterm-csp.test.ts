/**
 * xterm.js under the app's Content-Security-Policy, in Debian's Chromium: the real xterm
 * build and the real renderer/views/xterm-csp.ts (compiled as it is), served from
 * 127.0.0.1 with the policy of shared/csp.ts as a header. Without the workaround, xterm's
 * DOM renderer injects `<style>` elements and the browser reports violations (the control
 * arm: the test can see them); with it, there is none, no `<style>` element exists, and the
 * theme's rules apply (a red cell is red), also after a resize and a theme change, and for
 * what xterm styles through the style attribute (24-bit colours, a selection).
 */
import { readFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY } from '../../shared/csp.js';
import { launchChromium } from './chromium.js';

const PAGE = `<!doctype html><html><head><meta charset="utf-8"><link rel="stylesheet" href="/xterm.css"></head>
<body><div id="t"></div><script type="module" src="/main.js"></script></body></html>`;

// The page's own script: a terminal opened with or without the workaround (?shim=0), some coloured output.
const MAIN = `import { Terminal } from '/xterm.mjs';
import { openTerminal } from '/xterm-csp.js';
window.violations = [];
document.addEventListener('securitypolicyviolation', (e) => window.violations.push(e.violatedDirective + ' ' + (e.sample || e.blockedURI)));
const shim = new URL(location.href).searchParams.get('shim') !== '0';
const term = new Terminal({ cols: 60, rows: 10, theme: { red: '#ff0000', background: '#000000', foreground: '#ffffff' } });
const el = document.getElementById('t');
if (shim) window.cleanup = openTerminal(term, el); else term.open(el);
window.term = term;
term.write('\\x1b[31mred\\x1b[0m plain login: ', () => (window.written = true));
// Helpers the test calls by name (its own code runs in Node, without the DOM's types).
window.frames2 = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
window.colorOf = (selector, text) => {
  const el = [...document.querySelectorAll(selector)].find((e) => e.textContent === text);
  return el ? [getComputedStyle(el).color, el.getAttribute('style')] : null;
};
window.retheme = () => {
  term.resize(80, 20);
  term.options.theme = { red: '#00ff00', background: '#ffffff', foreground: '#000000' };
};
window.truecolorSelected = () => new Promise((r) => term.write('\\r\\n\\x1b[38;2;1;2;3mtrue\\x1b[48;2;250;0;0mcolour\\x1b[0m', () => { term.selectAll(); r(); }));
window.disposeAll = () => { term.dispose(); window.cleanup(); };
`;

let server: Server;
let origin: string;
let browser: Browser;

function files(): Record<string, { type: string; body: string }> {
  const shim = ts.transpileModule(readFileSync('renderer/views/xterm-csp.ts', 'utf8'), {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  }).outputText;
  return {
    '/': { type: 'text/html', body: PAGE },
    '/main.js': { type: 'text/javascript', body: MAIN },
    '/xterm-csp.js': { type: 'text/javascript', body: shim },
    '/xterm.mjs': { type: 'text/javascript', body: readFileSync('node_modules/@xterm/xterm/lib/xterm.mjs', 'utf8') },
    '/xterm.css': { type: 'text/css', body: readFileSync('node_modules/@xterm/xterm/css/xterm.css', 'utf8') },
  };
}

beforeAll(async () => {
  const served = files();
  server = createServer((req, res) => {
    const file = served[new URL(req.url ?? '/', 'http://127.0.0.1').pathname];
    if (!file) return void res.writeHead(404).end();
    res.writeHead(200, {
      'Content-Type': `${file.type}; charset=utf-8`,
      'Content-Security-Policy': CONTENT_SECURITY_POLICY,
    });
    res.end(file.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
});

async function open(query: string): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${origin}/${query}`);
  await page.waitForFunction('window.written === true');
  // Let the renderer paint (it renders on animation frames).
  await page.evaluate('frames2()');
  return { page, errors };
}

const violations = (page: Page) => page.evaluate('window.violations') as Promise<string[]>;

describe('xterm.js under the app CSP', () => {
  it('control: plain term.open() injects <style> elements the policy refuses', async () => {
    const { page } = await open('?shim=0');
    expect(await violations(page)).toEqual(expect.arrayContaining([expect.stringMatching(/^style-src/)]));
    await page.close();
  });

  it('openTerminal(): no violation, no <style> element, theme rules apply; after resize, retheme, 24-bit colour and a selection too', async () => {
    const { page, errors } = await open('');
    expect(await page.locator('.xterm-rows').innerText()).toContain('red plain login:');
    expect(await page.locator('style').count()).toBe(0);
    const red = async () => ((await page.evaluate("colorOf('.xterm-rows span.xterm-fg-1', 'red')")) as string[])[0];
    expect(await red()).toBe('rgb(255, 0, 0)');
    await page.evaluate('retheme()');
    await page.evaluate('frames2()');
    expect(await red()).toBe('rgb(0, 255, 0)');
    // 24-bit colours and a selection: xterm styles those cells through the style attribute.
    // Selected, the cells merge into one span whose background is the selection's.
    await page.evaluate('truecolorSelected()');
    await page.evaluate('frames2()');
    expect(await page.evaluate("colorOf('.xterm-rows span', 'truecolour')")).toEqual([
      'rgb(1, 2, 3)',
      expect.stringMatching(/background-color/),
    ]);
    expect(await violations(page)).toEqual([]);
    expect(errors).toEqual([]);
    // The cleanup drops the adopted sheets, and the document's own createElement is back.
    expect(await page.evaluate('document.adoptedStyleSheets.length')).toBeGreaterThan(0);
    await page.evaluate('disposeAll()');
    expect(await page.evaluate('document.adoptedStyleSheets.length')).toBe(0);
    expect(await page.evaluate("Object.hasOwn(document, 'createElement')")).toBe(false);
    await page.close();
  });
});
