/**
 * A panel's request to the backend as the panel shows it: busy while it runs (its buttons
 * wait), and the error it ended with until the next one starts. The Config view's Export and
 * Import panels run every request through it, so each says its state the same way.
 */
import { useState } from 'react';
import { errorMessage } from '../format.js';

/** The state of a panel's requests, and how to run one. */
export interface RequestState {
  busy: boolean;
  /** The last request's error message; cleared when the next request starts. */
  error: string | undefined;
  /**
   * Runs `call` with `busy` set and the previous error cleared. When it throws, `onError`
   * runs first (to drop what the call would have shown) and its message becomes `error`.
   */
  run: (call: () => Promise<void>, onError?: () => void) => Promise<void>;
}

export function useRequestState(): RequestState {
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  async function run(call: () => Promise<void>, onError?: () => void): Promise<void> {
    setBusy(true);
    setError(undefined);
    try {
      await call();
    } catch (err) {
      onError?.();
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  }
  return { busy, error, run };
}
