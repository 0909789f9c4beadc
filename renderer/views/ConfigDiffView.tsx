/** What an import would change in the config, list by list (hosts, machine types, images, other fields). */
import type { Change, ConfigDiff } from '../../shared/config-diff.js';

function show(value: unknown): string {
  return value === undefined ? '' : JSON.stringify(value);
}

function ChangeList({ title, changes }: { title: string; changes: Change[] }) {
  if (changes.length === 0) return null;
  return (
    <>
      <h4>{title}</h4>
      <ul className="diff" aria-label={title}>
        {changes.map((c) => (
          <li key={`${c.kind}:${c.key}`} className={`diff-${c.kind}`}>
            <span className="diff-kind">{c.kind}</span> <code>{c.key}</code>
            {c.kind === 'changed' && (
              <span className="meta">
                {' '}
                {show(c.before)} → {show(c.after)}
              </span>
            )}
            {c.kind === 'added' && <span className="meta"> {show(c.after)}</span>}
          </li>
        ))}
      </ul>
    </>
  );
}

/** The import preview's changes; says so when the text is the current config. */
export function ConfigDiffView({ diff }: { diff: ConfigDiff }) {
  if (diff.unchanged) return <p className="empty">Nothing would change: the text is the current config.</p>;
  return (
    <div className="diff-view">
      <ChangeList title="Hosts" changes={diff.hosts} />
      <ChangeList title="Machine types" changes={diff.machineTypes} />
      <ChangeList title="Images" changes={diff.images} />
      <ChangeList title="Other fields" changes={diff.fields} />
    </div>
  );
}
