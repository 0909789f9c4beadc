/**
 * The api the stores and their actions call. Views never hold it (a lint rule keeps
 * renderer/views/** and App.tsx from importing it or the window's api): they call store
 * actions, which reach the backend here. The window's api by default, made once; a unit
 * test binds its own.
 */
import type { EgressApi } from '../../shared/ipc.js';
import { windowApi } from '../api.js';

let bound: EgressApi | undefined;
let fromWindow: EgressApi | undefined;

/** The bound api, else the window's (which throws, saying why, on a page opened outside the app). */
export function storeApi(): EgressApi {
  return bound ?? (fromWindow ??= windowApi());
}

/** Binds the api the stores call (a test's fake bridge); undefined goes back to the window's. */
export function bindStoreApi(api: EgressApi | undefined): void {
  bound = api;
}
