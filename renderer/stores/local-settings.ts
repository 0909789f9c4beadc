/**
 * Where the window's remembered settings live: zustand's `persist` middleware over
 * localStorage, one key per store holding `{state, version}`. Two things persist's own
 * JSON storage does not do:
 * - a full or disabled storage (private mode) never fails the store's update: the setting
 *   is only forgotten;
 * - before persist, each setting had a key of its own (`legacy`: old key → field). While
 *   the store's key is absent those are read as version 0, so a person's saved view, sort
 *   and open proxy survive the move; they are removed once the store's key is written.
 * Stored values are data from an older or another build: each store's `merge` validates
 * them field by field and keeps its default for anything else.
 */
import { type PersistStorage, type StorageValue, createJSONStorage } from 'zustand/middleware';

/** Reads one key of localStorage as JSON; undefined when absent, unreadable or not JSON. */
function readJson(key: string): unknown {
  try {
    const raw = localStorage.getItem(key);
    return raw === null ? undefined : (JSON.parse(raw) as unknown);
  } catch {
    return undefined;
  }
}

export function localSettings<S>(legacy: Readonly<Record<string, keyof S>> = {}): PersistStorage<S> {
  // Asked on each call: localStorage may be missing (a test under Node) or refuse access.
  const json = () => createJSONStorage<S>(() => localStorage);
  return {
    getItem(name) {
      try {
        const stored = json()?.getItem(name);
        if (stored) return stored;
      } catch {
        // Not JSON: as if absent (the store keeps its defaults).
      }
      const state: Partial<Record<keyof S, unknown>> = {};
      for (const [key, field] of Object.entries(legacy)) {
        const value = readJson(key);
        if (value !== undefined) state[field] = value;
      }
      return Object.keys(state).length ? ({ state, version: 0 } as StorageValue<S>) : null;
    },
    setItem(name, value) {
      try {
        json()?.setItem(name, value);
        for (const key of Object.keys(legacy)) localStorage.removeItem(key);
      } catch {
        // Storage full or disabled: the setting is only forgotten.
      }
    },
    removeItem(name) {
      try {
        json()?.removeItem(name);
      } catch {
        // Nothing to remove from a storage that cannot be reached.
      }
    },
  };
}

/** True for a plain object: what a stored state must be before its fields are looked at. */
export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
