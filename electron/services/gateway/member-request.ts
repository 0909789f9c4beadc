/**
 * A plain HTTP request sent through an HTTP member, waiting for the member's answer before
 * anything is relayed (issue 40's failover, for plain HTTP as `CONNECT` has it): a member
 * whose proxy stops between two health rounds may still accept the connection (from its
 * listen backlog, or while shutting down) and then close it without a word. For a request
 * without a body nothing of the client's has been consumed, so the gateway may send it again
 * through another member: the close is reported as {@link MemberUnreachableError}, which the
 * gateway's failover takes as "try the next one".
 *
 * There is no deadline on the answer: it comes after the target's own, and a slow target is
 * not a dead member. A member that stays silent is ended by the client going away (`signal`).
 */
import { type ClientRequest, type IncomingMessage, type OutgoingHttpHeaders, request } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { MemberUnreachableError } from './upstream.js';

export interface MemberRequest {
  method: string;
  /** The absolute URL (an HTTP proxy's request line). */
  path: string;
  headers: OutgoingHttpHeaders;
}

/** `r` on `stream` (a member's connection, or a tunnel through a SOCKS5 one), not ended: a body may follow. */
export function sendToMember(stream: Duplex, r: MemberRequest): ClientRequest {
  return request({
    createConnection: () => stream as Socket,
    method: r.method,
    path: r.path,
    setHost: false,
    headers: r.headers,
  });
}

/** The request sent (ended: it has no body) and the member's answer, once its head came. */
export function askMember(
  stream: Duplex,
  r: MemberRequest,
  signal: AbortSignal,
): Promise<{ up: ClientRequest; answer: IncomingMessage }> {
  return new Promise((resolve, reject) => {
    const up = sendToMember(stream, r);
    const fail = (err: Error) => {
      signal.removeEventListener('abort', gone);
      up.destroy();
      reject(new MemberUnreachableError(`it closed the connection before answering (${err.message})`));
    };
    const gone = () => {
      up.off('error', fail);
      up.on('error', () => undefined);
      up.destroy();
      reject(new Error('the client went away'));
    };
    if (signal.aborted) return gone();
    signal.addEventListener('abort', gone, { once: true });
    up.once('error', fail);
    up.once('response', (answer) => {
      signal.removeEventListener('abort', gone);
      up.off('error', fail);
      resolve({ up, answer });
    });
    up.end();
  });
}
