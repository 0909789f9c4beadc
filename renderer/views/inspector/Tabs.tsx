/**
 * A tab list (WAI-ARIA tabs pattern, automatic activation): one tab stop for the list,
 * ←/→ move between tabs and select them, Home/End go to the first/last. Panels are
 * rendered only while selected.
 */
import { type ReactNode, useRef } from 'react';

export interface TabDef {
  id: string;
  label: string;
  panel: () => ReactNode;
}

export function Tabs({
  tabs,
  selected,
  onSelect,
  label,
  idPrefix,
}: {
  tabs: readonly TabDef[];
  selected: string;
  onSelect: (id: string) => void;
  label: string;
  idPrefix: string;
}) {
  const list = useRef<HTMLDivElement>(null);
  const current = tabs.find((t) => t.id === selected) ?? tabs[0];
  if (!current) return null;
  const select = (index: number) => {
    const tab = tabs[(index + tabs.length) % tabs.length]!;
    onSelect(tab.id);
    list.current?.querySelector<HTMLElement>(`#${idPrefix}-tab-${tab.id}`)?.focus();
  };
  const onKeyDown = (e: React.KeyboardEvent) => {
    const at = tabs.indexOf(current);
    const next = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: tabs.length - 1 }[e.key];
    if (next === undefined) return;
    e.preventDefault();
    select(next);
  };
  return (
    <>
      <div role="tablist" aria-label={label} className="tabs" ref={list} onKeyDown={onKeyDown}>
        {tabs.map((t) => {
          const active = t.id === current.id;
          return (
            <button
              type="button"
              role="tab"
              key={t.id}
              id={`${idPrefix}-tab-${t.id}`}
              aria-selected={active}
              aria-controls={`${idPrefix}-panel-${t.id}`}
              tabIndex={active ? 0 : -1}
              className="tab"
              onClick={() => onSelect(t.id)}
            >
              {t.label}
            </button>
          );
        })}
      </div>
      <div
        role="tabpanel"
        className="tab-panel"
        id={`${idPrefix}-panel-${current.id}`}
        aria-labelledby={`${idPrefix}-tab-${current.id}`}
        tabIndex={0}
      >
        {current.panel()}
      </div>
    </>
  );
}
