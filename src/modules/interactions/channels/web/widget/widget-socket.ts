/**
 * The visitors' Socket.IO namespace `/widget` (issue 32), on the gateway's server and adapter (so its
 * broadcasts cross instances). The handshake brings `auth.website_token` and `auth.token` (the visitor
 * token) from an allowed origin (the service's own from configuration, never `Host`); a refused handshake
 * carries `data.code`. A visitor's sockets (its tabs and, verified, its devices) share the room of its chat; it
 * hears only that room. Each socket also joins the room of its token's generation, closed when a resume
 * replaces that token (issue 48).
 *
 * Server → visitor: `widget.ready` `{ visitor_id, conversation_id }`, `widget.message` `{ message }` (an
 * agent's message), `widget.typing` `{ typing }` (an agent writes), `widget.read` `{ up_to_message_id }` (an
 * agent read the visitor's messages). Visitor → server: `widget.typing` `{ typing }`, `widget.delivered` and
 * `widget.read` `{ message_id }` (the agent's messages up to that one reached / were read by the visitor).
 */
import type { Namespace, Socket } from 'socket.io';
import type { FastifyBaseLogger } from 'fastify';
import { AppError } from '../../../../../platform/errors.js';
import { ownOrigins } from '../../../../../platform/http/service-origin.js';
import { visitorGenerationRoom, visitorRoom } from '../../../../../platform/realtime/rooms.js';
import type { VisitorMessage } from './visitor-message.schemas.js';

declare module '../../../../../platform/realtime/events.js' {
  /** What the server sends a visitor's sockets (through the publisher, but `widget.ready`, the handshake's answer). */
  interface VisitorServerEvents {
    'widget.ready': (payload: { visitor_id: number; conversation_id: number | null }) => void;
    'widget.message': (payload: { message: VisitorMessage }) => void;
    'widget.typing': (payload: { typing: boolean }) => void;
    'widget.read': (payload: { up_to_message_id: number }) => void;
  }
}

/** An authenticated visitor's socket, as the web channel's service knows it. */
interface SocketVisitor {
  visitorId: number;
  websiteToken: string;
  externalChatId: string;
  /** The generation of the token the socket was opened with. */
  tokenGeneration: number;
}

interface WidgetHandlers<V extends SocketVisitor> {
  /** Authenticates a handshake; throws an AppError (its code goes to the client). */
  authenticate(input: { websiteToken: unknown; token: unknown; origin: string | undefined; ownOrigins: string[]; ip: string }): Promise<V>;
  conversationOf(visitor: V): Promise<number | null>;
  typing(visitor: V, typing: boolean): Promise<void>;
  seen(visitor: V, status: 'delivered' | 'read', messageId: number): Promise<void>;
}

export interface WidgetHub {
  /**
   * Closes the sockets of the visitor of chat `externalChatId` (any instance) opened with the token that
   * `generation` replaced: a revoked token hears nothing more.
   */
  closeRevoked(websiteToken: string, externalChatId: string, generation: number): void;
  /** Starts answering handshakes (until then every handshake is refused). */
  attach<V extends SocketVisitor>(handlers: WidgetHandlers<V>): void;
  socketCount(): number;
}

function handshakeError(code: string, message: string): Error {
  const err = new Error(message) as Error & { data: { code: string } };
  err.data = { code };
  return err;
}

/** `publicBaseUrl` (PUBLIC_BASE_URL) names the service's own origin, whose demo page may use any website. */
export function createWidgetHub(nsp: Namespace, log: FastifyBaseLogger, publicBaseUrl: string | undefined): WidgetHub {
  let handlers: WidgetHandlers<SocketVisitor> | undefined;
  nsp.use((socket, next) => {
    if (handlers === undefined) return next(handshakeError('unavailable', 'The website chat is starting'));
    const auth = (socket.handshake.auth ?? {}) as Record<string, unknown>;
    const origin = socket.handshake.headers.origin;
    const own = ownOrigins(publicBaseUrl, socket.request.socket);
    handlers.authenticate({ websiteToken: auth.website_token, token: auth.token, origin, ownOrigins: own, ip: socket.handshake.address }).then(
      (visitor) => {
        (socket.data as { visitor?: SocketVisitor }).visitor = visitor;
        next();
      },
      (err: unknown) => next(err instanceof AppError ? handshakeError(err.code, err.message) : handshakeError('invalid_visitor_token', 'Refused')),
    );
  });
  nsp.on('connection', (socket: Socket) => {
    const visitor = (socket.data as { visitor: SocketVisitor }).visitor;
    const h = handlers!;
    void socket.join([
      visitorRoom(visitor.websiteToken, visitor.externalChatId),
      visitorGenerationRoom(visitor.websiteToken, visitor.externalChatId, visitor.tokenGeneration),
    ]);
    const fail = (err: unknown) => {
      if (!(err instanceof AppError)) log.warn({ err }, 'widget socket event failed');
    };
    socket.on('widget.typing', (body: unknown) => {
      const typing = (body as { typing?: unknown } | null)?.typing;
      if (typeof typing === 'boolean') h.typing(visitor, typing).catch(fail);
    });
    for (const status of ['delivered', 'read'] as const) {
      socket.on(`widget.${status}`, (body: unknown) => {
        const id = (body as { message_id?: unknown } | null)?.message_id;
        if (typeof id === 'number' && Number.isInteger(id) && id > 0) h.seen(visitor, status, id).catch(fail);
      });
    }
    h.conversationOf(visitor).then(
      (conversationId) => socket.emit('widget.ready', { visitor_id: visitor.visitorId, conversation_id: conversationId }),
      (err: unknown) => {
        log.error({ err }, 'widget socket could not start');
        socket.disconnect(true);
      },
    );
  });
  return {
    closeRevoked(websiteToken, externalChatId, generation) {
      // A generation is replaced only by the next one (a resume checks the current one), and that
      // replacement closed the generations before it.
      nsp.in(visitorGenerationRoom(websiteToken, externalChatId, generation - 1)).disconnectSockets(true);
    },
    attach(h) {
      handlers = h;
    },
    socketCount: () => nsp.sockets.size,
  };
}
