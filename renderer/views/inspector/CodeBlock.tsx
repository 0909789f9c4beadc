/**
 * Highlighted code with line numbers (renderer/highlight.ts), optionally with a range of
 * lines marked as a labelled region (the domain XML's metadata element). The numbers are
 * not selectable, so selecting and copying the text gives the text alone.
 */
import { type ReactNode, useMemo } from 'react';
import { type Language, highlightLines } from '../../highlight.js';
import type { LineRange } from '../../xml-metadata-range.js';

function Line({ n, children }: { n: number; children: ReactNode }) {
  return (
    <span className="code-line">
      <span className="code-ln" aria-hidden="true">
        {n}
      </span>
      <span className="code-text">{children}</span>
    </span>
  );
}

export function CodeBlock({
  language,
  text,
  label,
  region,
}: {
  language: Language;
  text: string;
  label: string;
  region?: { range: LineRange; label: string } | undefined;
}) {
  const lines = useMemo(() => {
    const all = highlightLines(language, text);
    // A final newline ends the last line; it does not start an empty one.
    if (all.length > 1 && text.endsWith('\n')) all.pop();
    return all;
  }, [language, text]);
  const rendered = (from: number, to: number) =>
    lines.slice(from, to).map((nodes, i) => (
      <Line key={from + i} n={from + i + 1}>
        {nodes}
      </Line>
    ));
  const range = region && region.range.start < lines.length ? region.range : undefined;
  return (
    <pre className={`code code-${language}`} aria-label={label} tabIndex={0}>
      <code className="hljs">
        {range ? (
          <>
            {rendered(0, range.start)}
            <span role="region" aria-label={region!.label} className="code-region">
              <span className="code-region-label" aria-hidden="true">
                {region!.label}
              </span>
              {rendered(range.start, range.end + 1)}
            </span>
            {rendered(range.end + 1, lines.length)}
          </>
        ) : (
          rendered(0, lines.length)
        )}
      </code>
    </pre>
  );
}
