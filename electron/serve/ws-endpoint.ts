/**
 * Serve mode's WebSocket: `{id, channel, input}` in, `{id, envelope}` out, through the same
 * router as the app window. The browser is as untrusted as the renderer: every message is
 * checked before the router sees it, and a bad one gets an error envelope, never a crash.
 */
import type { Logger } from 'pino';
import type { RawData, WebSocket, WebSocketServer } from 'ws';
import { z } from 'zod';
import { ConsoleOwner } from '../ipc/console-owner.js';
import type { Router } from '../ipc/router.js';
import type { Envelope, WsEvent, WsResponse } from '../../shared/ipc-transport.js';
import { ConsoleRoutes } from './console-routes.js';

/** A well-formed call. Extra keys are refused: a client sending them is not ours. */
export const WsRequestSchema = z.strictObject({
  id: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
  channel: z.string().max(200),
  input: z.unknown().optional(),
});

function protocolError(message: string): Envelope {
  return { ok: false, error: { name: 'ProtocolError', message } };
}

/** Finds the id of a message that is otherwise malformed, so the error still reaches its caller. */
function salvageId(value: unknown): number | null {
  if (typeof value !== 'object' || value === null || !('id' in value)) return null;
  const parsed = WsRequestSchema.shape.id.safeParse(value.id);
  return parsed.success ? parsed.data : null;
}

function asText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}

/** Answers one raw message: parses, validates and routes it. Never throws. */
export async function answer(router: Pick<Router, 'invoke'>, data: RawData, isBinary: boolean): Promise<WsResponse> {
  if (isBinary) return { id: null, envelope: protocolError('binary messages are not accepted: send JSON text') };
  let message: unknown;
  try {
    message = JSON.parse(asText(data));
  } catch {
    return { id: null, envelope: protocolError('the message is not JSON') };
  }
  const parsed = WsRequestSchema.safeParse(message);
  if (!parsed.success) {
    const detail = parsed.error.issues.map((i) => `${i.path.join('.') || 'message'}: ${i.message}`).join('; ');
    return {
      id: salvageId(message),
      envelope: protocolError(`malformed call (expected {id, channel, input}): ${detail}`),
    };
  }
  const { id, channel, input } = parsed.data;
  return { id, envelope: await router.invoke(channel, input) };
}

const send = (socket: WebSocket, text: string): void => {
  if (socket.readyState === socket.OPEN) socket.send(text);
};

/**
 * Wires a WebSocketServer's connections to the router; returns a broadcaster for events
 * (`{event, payload}` to every open socket, except a console's events, which go to the
 * socket that opened it alone; the server feeds it the router's events).
 */
export function serveContract(
  wss: WebSocketServer,
  router: Router,
  log: Logger,
): (event: string, payload: unknown) => void {
  /** Each browser's console sessions, for releasing them with its socket. */
  const owners = new Map<WebSocket, ConsoleOwner>();
  /** Which socket each console session's events go to (held while its open is answering). */
  const routes = new ConsoleRoutes<WebSocket>();
  wss.on('connection', (socket: WebSocket) => {
    log.info({ clients: wss.clients.size }, 'serve: browser connected');
    // The console sessions this browser opens close when its socket does.
    const owner: ConsoleOwner = new ConsoleOwner(router, {
      // Sent before the open's answer, as output arriving then would be: the page keeps events by session id.
      claimed: (session) => {
        const { texts, ended } = routes.claim(session, socket);
        for (const text of texts) send(socket, text);
        if (ended) owner.ended(session);
      },
      dropped: (session) => routes.drop(session),
    });
    owners.set(socket, owner);
    socket.on('message', (data, isBinary) => {
      void answer(owner, data, isBinary).then((response) => {
        if (response.envelope.ok === false && response.envelope.error.name === 'ProtocolError') {
          log.warn({ reason: response.envelope.error.message }, 'serve: refused a malformed message');
        }
        send(socket, JSON.stringify(response));
      });
    });
    // Too-big messages (ws closes with 1009) and broken frames surface here: log, don't crash.
    socket.on('error', (err) => log.warn({ err: err.message }, 'serve: WebSocket error'));
    socket.on('close', (code) => {
      log.info({ code }, 'serve: browser disconnected');
      owners.delete(socket);
      void owner.release();
    });
  });
  return (event, payload) => {
    const message: WsEvent = { event, payload };
    const text = JSON.stringify(message);
    // A console's output and end go to the browser that opened it, never to every tab.
    if (event === 'console:data' || event === 'console:closed') {
      const session = (payload as { session: string }).session;
      const end = event === 'console:closed';
      const client = routes.route(session, text, end);
      if (!client) return; // held until its open answers, or its browser is gone
      send(client, text);
      if (end) owners.get(client)?.ended(session);
      return;
    }
    for (const client of wss.clients) send(client, text);
  };
}
