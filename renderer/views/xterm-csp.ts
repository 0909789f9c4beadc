/**
 * Opens an xterm.js terminal under the app's strict CSP (`style-src 'self'`, no inline
 * style elements: shared/csp.ts).
 *
 * Why: xterm 6 has only its DOM renderer built in, and that renderer (and the viewport's
 * scrollbar) put their theme and cell-size rules in `<style>` elements they create during
 * `open()` and later fill through `textContent`. The browser refuses those sheets under our
 * policy (a CSP violation each time, and an unstyled, colourless terminal). xterm takes no
 * nonce, and loosening the policy for one panel would loosen it for the whole app.
 *
 * How: while `open()` runs, the document hands xterm a stand-in for each `<style>` it asks
 * for: an inert `<template>` element (never rendered) whose `textContent` goes into a
 * constructed stylesheet adopted by the document. CSSOM sheets are not inline markup, so
 * the policy allows them; xterm keeps updating the text (theme and size changes) and the
 * sheet follows. xterm creates these elements only during `open()` (checked in its source:
 * DomRenderer's two and Viewport's one), so the swap lasts exactly that call. The returned
 * function removes the sheets (call it after `terminal.dispose()`).
 */
import type { Terminal } from '@xterm/xterm';

function standIn(doc: Document, create: Document['createElement'], sheets: CSSStyleSheet[]): HTMLElement {
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

/** `terminal.open(parent)` without inline `<style>` elements; returns the cleanup of the sheets it adopted. */
export function openTerminal(terminal: Terminal, parent: HTMLElement): () => void {
  const doc = parent.ownerDocument;
  const sheets: CSSStyleSheet[] = [];
  const create = doc.createElement;
  const hadOwn = Object.hasOwn(doc, 'createElement');
  const swapped = function (this: Document, tagName: string, options?: ElementCreationOptions): HTMLElement {
    if (tagName.toLowerCase() === 'style') return standIn(doc, create, sheets);
    return create.call(doc, tagName, options);
  };
  Object.defineProperty(doc, 'createElement', { value: swapped, configurable: true, writable: true });
  try {
    terminal.open(parent);
  } finally {
    if (hadOwn) Object.defineProperty(doc, 'createElement', { value: create, configurable: true, writable: true });
    else Reflect.deleteProperty(doc, 'createElement');
  }
  return () => {
    doc.adoptedStyleSheets = doc.adoptedStyleSheets.filter((s) => !sheets.includes(s));
  };
}
