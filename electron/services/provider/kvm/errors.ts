/** The provider's errors: each says what happened and, where it helps, what to do next. */

import type { LaunchStep } from '../../../../shared/launch-steps.js';
import { isConnectionClosed } from '../../../libvirt/index.js';
import {
  RemoteSocketError,
  SocketError,
  SocketMissingError,
  SocketRefusedError,
  SshConnectError,
  SshConnectionLostError,
} from '../../../transport/index.js';
import { messageOf } from '../../../../shared/errors.js';
import { type LaunchedBy, ownerText } from '../../../../shared/fleet-meta.js';

export { LAUNCH_STEPS, type LaunchStep } from '../../../../shared/launch-steps.js';

/** A launch failed at `step`; everything it had created was removed (see `rollbackErrors` when not). */
export class LaunchError extends Error {
  override readonly name = 'LaunchError';
  constructor(
    readonly step: LaunchStep,
    override readonly cause: unknown,
    /** Objects the rollback could not remove, with why: a person must look at them. */
    readonly rollbackErrors: string[] = [],
  ) {
    const why = messageOf(cause);
    const left = rollbackErrors.length ? `; rollback left behind: ${rollbackErrors.join('; ')}` : '';
    super(`launch failed at step "${step}": ${why}${left}`, { cause });
  }
}

/** The proxy did not become ready in time. The VM is left for inspection unless rollback was asked for. */
export class LaunchTimeoutError extends Error {
  override readonly name = 'LaunchTimeoutError';
  constructor(
    readonly proxy: string,
    readonly seen: string,
    readonly rolledBack: boolean,
    readonly step: LaunchStep = 'proxy',
    readonly rollbackErrors: string[] = [],
  ) {
    super(
      `proxy ${proxy} was not ready in time: ${seen}; ${rolledBack ? 'it was removed (rollback on timeout)' : `it is left running for inspection (egress-desk proxies inspect ${proxy}; delete it with egress-desk proxies delete ${proxy})`}`,
    );
  }
}

/** A proxy of that name exists with a different spec. */
export class AlreadyExistsError extends Error {
  override readonly name = 'AlreadyExistsError';
  constructor(
    readonly proxy: string,
    readonly host: string,
    detail?: string,
  ) {
    super(
      detail
        ? `a proxy named ${proxy} cannot be replaced on host ${host}: ${detail}`
        : `a proxy named ${proxy} already exists on host ${host} with a different spec; delete it first or choose another name`,
    );
  }
}

/** No proxy of that name on any reachable host. */
export class ProxyNotFoundError extends Error {
  override readonly name = 'ProxyNotFoundError';
  constructor(
    readonly proxy: string,
    unreachable: string[] = [],
  ) {
    super(
      `no proxy named ${proxy}${unreachable.length ? ` on the reachable hosts (not reachable: ${unreachable.join(', ')})` : ''}`,
    );
  }
}

/** No host can take the proxy. */
export class PlacementError extends Error {
  override readonly name = 'PlacementError';
}

/**
 * True when a call failed only because the host's connection is gone or cannot be opened
 * right now (the daemon restarting, its socket absent for a moment, an SSH session lost):
 * the same call on a reopened connection may succeed. Host keys, sign-in and libvirt's own
 * refusals are not this.
 */
export function isLostConnection(err: unknown): boolean {
  return (
    isConnectionClosed(err) ||
    err instanceof SocketMissingError ||
    err instanceof SocketRefusedError ||
    err instanceof SocketError ||
    err instanceof SshConnectError ||
    err instanceof SshConnectionLostError ||
    err instanceof RemoteSocketError
  );
}

/** Stopping or deleting a proxy someone else launched, without `force`: it names the owner, so a person can ask them first. */
export class NotYourProxyError extends Error {
  override readonly name = 'NotYourProxyError';
  constructor(
    readonly proxy: string,
    readonly launchedBy: LaunchedBy,
    verb: 'stop' | 'delete' | 'replace',
  ) {
    super(
      `proxy ${proxy} was launched by ${ownerText(launchedBy)}, not by you: ${verb} it only with their agreement (--force)`,
    );
  }
}
