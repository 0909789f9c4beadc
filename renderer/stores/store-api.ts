/**
 * The api the stores and their actions call. Views never hold it (a lint rule keeps
 * renderer/views/** and App.tsx from importing the backend module): they call store actions,
 * which reach the backend here. The window's api by default; a unit test binds its own.
 */
import type { EgressApi } from '../../shared/ipc.js';
import { backend } from '../backend.js';

let bound: EgressApi | undefined;

/** The bound api, else the window's (which throws, saying why, on a page opened outside the app). */
export function storeApi(): EgressApi {
  return bound ?? backend();
}

/** Binds the api the stores call (a test's fake bridge); undefined goes back to the window's. */
export function bindStoreApi(api: EgressApi | undefined): void {
  bound = api;
}
