/**
 * Where the `<metadata>` element of a libvirt domain XML lies, as a range of lines, so the
 * inspector can highlight it. A small scanner over the markup, not a regular expression:
 * comments, CDATA sections, processing instructions and the doctype are skipped whole (a
 * `<metadata>` written inside a comment is not the element), quoted attribute values may
 * hold `>`, and only the root's direct child counts (a `<metadata>` of some other
 * vocabulary nested deeper is not it). The element itself is never prefixed in libvirt's
 * XML; its children may be (`<egress:instance xmlns:egress="…">`), which is irrelevant here.
 */

/** A range of lines, 0-based and inclusive at both ends. */
export interface LineRange {
  start: number;
  end: number;
}

/** The line of character offset `offset` (0-based). */
function lineAt(text: string, offset: number): number {
  let line = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** The index just past the end of a tag that starts at `from` (after `<`), honouring quotes; -1 if unterminated. */
function tagEnd(text: string, from: number): number {
  let quote: string | undefined;
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '>') return i + 1;
  }
  return -1;
}

const SKIPPED: ReadonlyArray<readonly [open: string, close: string]> = [
  ['<!--', '-->'],
  ['<![CDATA[', ']]>'],
  ['<?', '?>'],
];

/**
 * The lines of the root element's `<metadata>` child (from its start tag to its end tag,
 * or the one line of `<metadata/>`), or undefined when there is none or the XML is cut off.
 */
export function metadataLineRange(xml: string): LineRange | undefined {
  let depth = 0;
  let start: number | undefined;
  let i = xml.indexOf('<');
  while (i !== -1 && i < xml.length) {
    const skipped = SKIPPED.find(([open]) => xml.startsWith(open, i));
    if (skipped) {
      const close = xml.indexOf(skipped[1], i + skipped[0].length);
      if (close === -1) return undefined;
      i = xml.indexOf('<', close + skipped[1].length);
      continue;
    }
    const end = tagEnd(xml, i + 1);
    if (end === -1) return undefined;
    const tag = xml.slice(i + 1, end - 1);
    if (tag.startsWith('!')) {
      // The doctype (its internal subset, if any, is not something libvirt writes).
    } else if (tag.startsWith('/')) {
      depth--;
      if (start !== undefined && depth === 1) return { start: lineAt(xml, start), end: lineAt(xml, i) };
    } else {
      const name = /^[^\s/>]+/.exec(tag)?.[0] ?? '';
      const selfClosing = tag.trimEnd().endsWith('/');
      if (depth === 1 && start === undefined && name === 'metadata') {
        if (selfClosing) return { start: lineAt(xml, i), end: lineAt(xml, end - 1) };
        start = i;
      }
      if (!selfClosing) depth++;
    }
    i = xml.indexOf('<', end);
  }
  return undefined;
}
