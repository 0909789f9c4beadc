/**
 * Syntax highlighting for the inspector: lowlight (highlight.js grammars as a hast tree)
 * with only the XML and YAML grammars registered, split into lines (for line numbers and
 * line-range highlights), and rendered to React elements here. No HTML string is ever
 * produced: the tree becomes `createElement` calls, so nothing needs
 * `dangerouslySetInnerHTML` and the strict CSP holds.
 */
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import { createLowlight } from 'lowlight';
import { type ReactNode, createElement } from 'react';

export type Language = 'xml' | 'yaml';

const lowlight = createLowlight({ xml, yaml });

/** lowlight's tree types, taken from its own signature (hast is its dependency, not ours). */
export type HastRoot = ReturnType<typeof lowlight.highlight>;
export type HastNode = HastRoot['children'][number];
type HastElement = Extract<HastNode, { type: 'element' }>;

/** The highlighted tree of `text` in `language`. */
export function highlightTree(language: Language, text: string): HastRoot {
  return lowlight.highlight(language, text);
}

/**
 * Splits a highlighted tree into lines. A token that spans lines (a multi-line comment,
 * CDATA section or tag) is cut at each newline into one copy per line, with the same
 * classes, so that every line can be rendered (and numbered, and highlighted) on its own.
 * The newlines themselves are dropped: line `i` holds what lay between newline `i-1` and `i`.
 * There is always at least one line, and as many as the text has newlines plus one.
 */
export function splitLines(nodes: readonly HastNode[]): HastNode[][] {
  const lines: HastNode[][] = [[]];
  const current = () => lines[lines.length - 1]!;
  for (const node of nodes) {
    if (node.type === 'text') {
      node.value.split('\n').forEach((part, i) => {
        if (i > 0) lines.push([]);
        if (part) current().push({ type: 'text', value: part });
      });
    } else if (node.type === 'element') {
      splitLines(node.children as HastNode[]).forEach((children, i) => {
        if (i > 0) lines.push([]);
        if (children.length) current().push({ ...node, children: children as HastElement['children'] });
      });
    }
    // Comments and doctypes do not occur in lowlight's output; they would carry no text to show.
  }
  return lines;
}

function classNameOf(element: HastElement): string | undefined {
  const value = element.properties.className;
  if (Array.isArray(value)) return value.map(String).join(' ') || undefined;
  return typeof value === 'string' && value ? value : undefined;
}

/**
 * One hast node as React: text stays text; an element becomes a `<span>` with its classes
 * and nothing else (lowlight only makes spans; any other tag or property is not carried
 * over, so the tree cannot inject markup or attributes).
 */
export function hastToReact(node: HastNode, key: string | number): ReactNode {
  if (node.type === 'text') return node.value;
  if (node.type !== 'element') return null;
  return createElement(
    'span',
    { key, className: classNameOf(node) },
    node.children.map((child, i) => hastToReact(child as HastNode, i)),
  );
}

/** `text` highlighted as React nodes, one entry per line. */
export function highlightLines(language: Language, text: string): ReactNode[][] {
  return splitLines(highlightTree(language, text).children).map((line) => line.map((node, i) => hastToReact(node, i)));
}
