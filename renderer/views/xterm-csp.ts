/**
 * Opens an xterm.js terminal under the app's strict CSP (`style-src 'self'`: no inline
 * style elements or attributes; shared/csp.ts).
 *
 * Why: xterm 6 has only its DOM renderer built in, and it styles in two ways the policy
 * refuses: `<style>` elements for the theme, the cell size and the scrollbar (DomRenderer
 * and Viewport, created during `open()` and refilled through `textContent` on theme or
 * size changes); and `setAttribute('style', …)` on the row spans of cells with a 24-bit
 * colour or inside a selection (DomRendererRowFactory, at every render). Each is a CSP
 * violation and a colourless or wrongly drawn terminal. xterm takes no nonce, and
 * loosening the policy for one panel would loosen it for the whole app.
 *
 * How: xterm creates these elements with `document.createElement` (the row factory always
 * with the global document, whatever `documentOverride` says), so the document's
 * `createElement` is shadowed while a terminal exists:
 *  - `<style>`, during `open()` only: an inert `<template>` (never rendered) whose
 *    `textContent` goes into a constructed stylesheet adopted by the document;
 *  - `<span>`: the real element, with `setAttribute('style', v)` done as
 *    `element.style.cssText = v` (the same declarations, through the CSSOM).
 * Constructed sheets and CSSOM changes are not inline markup, so the policy allows them.
 * This gives up nothing the policy protects: it guards against style injected through
 * markup (the HTML parser does not call createElement, so `<span style>` in markup is
 * still refused); our own scripts could always style through the CSSOM. The returned
 * function drops the terminal's sheets, and the shadowing once no terminal is left (call
 * it after `terminal.dispose()`).
 */
import type { Terminal } from '@xterm/xterm';

const create = Document.prototype.createElement as (
  this: Document,
  tagName: string,
  options?: ElementCreationOptions,
) => HTMLElement;
/** Terminals open per document: the shadowing stays while one is. */
const users = new WeakMap<Document, number>();
/** Where `<style>` requests go while a terminal opens (null otherwise: a real element). */
let opening: { doc: Document; sheets: CSSStyleSheet[] } | null = null;

function styleStandIn(doc: Document, sheets: CSSStyleSheet[]): HTMLElement {
  const element = create.call(doc, 'template');
  const sheet = new CSSStyleSheet();
  sheets.push(sheet);
  doc.adoptedStyleSheets = [...doc.adoptedStyleSheets, sheet];
  let text = '';
  Object.defineProperty(element, 'textContent', {
    get: () => text,
    set: (value: string | null) => {
      text = value ?? '';
      sheet.replaceSync(text);
    },
  });
  const remove = element.remove.bind(element);
  element.remove = () => {
    doc.adoptedStyleSheets = doc.adoptedStyleSheets.filter((s) => s !== sheet);
    remove();
  };
  return element;
}

function cssomStyled(element: HTMLElement): HTMLElement {
  const setAttribute = element.setAttribute.bind(element);
  element.setAttribute = (name: string, value: string) => {
    if (name.toLowerCase() === 'style') element.style.cssText = value;
    else setAttribute(name, value);
  };
  return element;
}

function shadowedCreateElement(this: Document, tagName: string, options?: ElementCreationOptions): HTMLElement {
  const tag = tagName.toLowerCase();
  if (tag === 'style' && opening?.doc === this) return styleStandIn(this, opening.sheets);
  const element = create.call(this, tagName, options);
  return tag === 'span' ? cssomStyled(element) : element;
}

function retain(doc: Document): void {
  const n = users.get(doc) ?? 0;
  if (n === 0)
    Object.defineProperty(doc, 'createElement', { value: shadowedCreateElement, configurable: true, writable: true });
  users.set(doc, n + 1);
}

function release(doc: Document): void {
  const n = (users.get(doc) ?? 1) - 1;
  users.set(doc, n);
  if (n === 0) Reflect.deleteProperty(doc, 'createElement');
}

/** `terminal.open(parent)` without inline styles; returns the cleanup (after `terminal.dispose()`). */
export function openTerminal(terminal: Terminal, parent: HTMLElement): () => void {
  const doc = parent.ownerDocument;
  const sheets: CSSStyleSheet[] = [];
  retain(doc);
  opening = { doc, sheets };
  try {
    terminal.open(parent);
  } finally {
    opening = null;
  }
  let done = false;
  return () => {
    if (done) return;
    done = true;
    doc.adoptedStyleSheets = doc.adoptedStyleSheets.filter((s) => !sheets.includes(s));
    release(doc);
  };
}
