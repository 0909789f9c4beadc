/** The window's own state (renderer/stores/ui-store.ts): import drafts and toasts. Remembering: local-settings.test.ts. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useUiStore } from '../../../renderer/stores/ui-store.js';

beforeEach(() => {
  vi.useFakeTimers();
  useUiStore.setState(useUiStore.getInitialState(), true);
});
afterEach(() => vi.useRealTimers());

describe('ui store', () => {
  it('an import draft shows the Config view; taking it leaves the view', () => {
    const draft = { fileName: 'edge.yaml', text: 'type: kvm\n', syntax: 'yaml' as const };
    useUiStore.getState().setImportDraft(draft);
    expect(useUiStore.getState()).toMatchObject({ view: 'config', importDraft: draft });
    useUiStore.getState().setView('hosts');
    useUiStore.getState().setImportDraft(undefined);
    expect(useUiStore.getState()).toMatchObject({ view: 'hosts', importDraft: undefined });
  });

  it('the import panel takes each draft once: the one waiting, then each that comes, until it stops following', () => {
    const taken: string[] = [];
    useUiStore.getState().setImportDraft({ fileName: 'a.yaml', text: 'a', syntax: 'yaml' });
    const stop = useUiStore.getState().takeImportDrafts((d) => taken.push(d.fileName));
    expect(taken).toEqual(['a.yaml']);
    expect(useUiStore.getState().importDraft).toBeUndefined();
    useUiStore.getState().setImportDraft({ fileName: 'b.json', text: '{}', syntax: 'json' });
    expect(taken).toEqual(['a.yaml', 'b.json']);
    expect(useUiStore.getState().importDraft).toBeUndefined();
    stop();
    useUiStore.getState().setImportDraft({ fileName: 'c.yaml', text: 'c', syntax: 'yaml' });
    expect(taken).toEqual(['a.yaml', 'b.json']);
    expect(useUiStore.getState().importDraft?.fileName).toBe('c.yaml');
  });

  it('a toast goes by itself: info after 4 s, an error after 8 s; dismiss takes it at once', () => {
    const s = useUiStore.getState();
    s.toast('Starting web-1');
    s.toast('Could not stop web-2', 'error');
    s.toast('Copied');
    const texts = () => useUiStore.getState().toasts.map((t) => t.text);
    expect(texts()).toEqual(['Starting web-1', 'Could not stop web-2', 'Copied']);
    s.dismiss(useUiStore.getState().toasts[2]!.id);
    vi.advanceTimersByTime(4000);
    expect(texts()).toEqual(['Could not stop web-2']);
    vi.advanceTimersByTime(4000);
    expect(texts()).toEqual([]);
  });
});
