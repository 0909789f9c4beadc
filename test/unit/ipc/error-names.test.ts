/**
 * The error names the renderer compares (shared/ipc-transport.ts ErrorNames) are the names
 * the backend's errors carry: a renamed class would otherwise turn "deleted" into a plain
 * error message on screen without any type error.
 */
import { describe, expect, it } from 'vitest';
import { ConsoleBusyError } from '../../../electron/services/app/console-sessions.js';
import { ProxyNotFoundError } from '../../../electron/services/provider/kvm/errors.js';
import { ErrorNames, isErrorNamed } from '../../../shared/ipc-transport.js';
import { BridgeError } from '../../../shared/ipc.js';

describe('error names of the contract', () => {
  it('are the names of the backend errors that carry them', () => {
    expect(new ProxyNotFoundError('web-1').name).toBe(ErrorNames.proxyNotFound);
    expect(new ConsoleBusyError('held').name).toBe(ErrorNames.consoleBusy);
  });

  it('are recognised on an error rethrown from its envelope, and only there', () => {
    const err = new BridgeError({ name: new ProxyNotFoundError('web-1').name, message: 'no proxy named web-1' });
    expect(isErrorNamed(err, ErrorNames.proxyNotFound)).toBe(true);
    expect(isErrorNamed(err, ErrorNames.consoleBusy)).toBe(false);
    expect(isErrorNamed({ name: ErrorNames.proxyNotFound }, ErrorNames.proxyNotFound)).toBe(false);
  });
});
