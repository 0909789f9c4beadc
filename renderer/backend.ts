/** The one api of this window (created once from window.egress), or why there is none. */
import type { EgressApi } from '../shared/ipc.js';
import { windowApi } from './api.js';

let api: EgressApi | undefined;

export function backend(): EgressApi {
  return (api ??= windowApi());
}
