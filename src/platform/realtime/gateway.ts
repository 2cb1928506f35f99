/**
 * The realtime gateway (DESIGN "Realtime", SPEC "Realtime gateway authentication" and "Realtime events"):
 * Socket.IO 4 on the service's HTTP server, namespace `/interactions`. The JWT comes from `auth.token`,
 * an `Authorization: Bearer` header or the `token` query parameter; a bad token is refused at the
 * handshake. A socket joins `interactions:entity:{entityId}` (unless its handshake asks for scope
 * `subscriptions`), gets `interaction.ready`, and may join chat and conversation rooms of its own entity
 * only. Every `authCheckIntervalMs` the gateway re-checks token expiry and membership of every socket (one
 * query for all of them) and disconnects stale ones.
 * A client that reconnects within `recoveryMs` (default 2 minutes), to any instance, gets the events it
 * missed, once (Socket.IO connection-state recovery; across instances on the Redis Streams adapter): the
 * token is checked again first, and the missed events are replayed only to the same user in the same
 * entity; rooms of another entity are never restored (docs/decisions.md, "Reconnect without loss").
 * Other modules reach it only through the `Realtime` interface (`ctx.realtime`); the events and their
 * payloads are the typed contract of events.ts.
 */
import type { Server as HttpServer } from 'node:http';
import { Server, type Namespace, type Socket } from 'socket.io';
import { createAdapter } from '@socket.io/redis-streams-adapter';
import { SessionAwareAdapter, type PrivateSessionId, type Session } from 'socket.io-adapter';
import { PacketType } from 'socket.io-parser';
import type { Redis } from 'ioredis';
import type { FastifyBaseLogger } from 'fastify';
import type { Authenticator, Principal } from '../auth/authenticator.js';
import { AppError } from '../errors.js';
import type { ClientToServerEvents, RealtimeEmitter, ServerToClientEvents, SubscriptionAck } from './events.js';

export type { RealtimeTarget } from './events.js';

export const REALTIME_NAMESPACE = '/interactions';

export const entityRoom = (entityId: number) => `interactions:entity:${entityId}`;
export const chatRoom = (entityId: number, externalChatId: string) => `interactions:entity:${entityId}:chat:${externalChatId}`;
export const conversationRoom = (entityId: number, conversationId: number) => `interactions:entity:${entityId}:conversation:${conversationId}`;

export interface Realtime extends RealtimeEmitter {
  /** Changes how often sockets are re-authorized (tests use a short interval). */
  configure(options: { authCheckIntervalMs?: number }): void;
  /** Number of connected sockets (metrics, tests). */
  socketCount(): number;
  close(): Promise<void>;
}

export interface RealtimeDeps {
  server: HttpServer;
  authenticator: Authenticator;
  /** Keys `${userId}:${entityId}` of the pairs that are still active memberships (the identity module answers). */
  activeMemberships(pairs: { userId: number; entityId: number }[]): Promise<Set<string>>;
  log: FastifyBaseLogger;
  redis?: Redis | undefined;
  authCheckIntervalMs?: number;
  /** How long a disconnected client's missed events are kept for its reconnection, ms; 0 turns recovery off. Default 120 000. */
  recoveryMs?: number;
  /** Events kept in the Redis stream shared by the instances (recovery reads back at most this many). Default 100 000. */
  recoveryStreamLength?: number;
}

/** What a restored session held, kept aside until the reconnecting socket is authorized again. */
interface RecoveredSession {
  userId: number | undefined;
  entityId: number | undefined;
  missedPackets: unknown[][];
}

interface SocketData {
  principal: Principal;
  /** What the socket hears, from its handshake (`scopeOf`). */
  scope: 'entity' | 'subscriptions';
  recoveredSession?: RecoveredSession;
}

/**
 * Socket.IO replays a restored session's missed packets as soon as the socket is created, before the
 * handshake middleware runs: the session is handed over with none, and what it missed is kept in its data
 * for the connection handler, which replays it only once the token has been checked again.
 */
function deferReplay(session: Session): Session {
  const previous = (session.data ?? {}) as Partial<SocketData>;
  const recoveredSession: RecoveredSession = {
    userId: previous.principal?.userId,
    entityId: previous.principal?.entityId,
    missedPackets: session.missedPackets,
  };
  return { ...session, data: { recoveredSession }, missedPackets: [] };
}

/** The in-process adapter with recovery (one instance, no Redis), replaying only after authorization. */
class DeferredReplaySessionAdapter extends SessionAwareAdapter {
  override async restoreSession(pid: PrivateSessionId, offset: string): Promise<Session> {
    const session = await super.restoreSession(pid, offset);
    return session ? deferReplay(session) : session;
  }
}

// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- no server-to-server events
type InterServerEvents = {};
type GatewaySocket = Socket<ClientToServerEvents, ServerToClientEvents, InterServerEvents, SocketData>;

/** Creates the gateway on `server`. */
export function createRealtimeGateway(deps: RealtimeDeps): Realtime {
  const recoveryMs = deps.recoveryMs ?? 120_000;
  let redisClient: Redis | undefined;
  let adapter: Parameters<Server["adapter"]>[0] | undefined;
  if (deps.redis) {
    // Every broadcast is one XADD, and a change's events are broadcast in one turn of the event loop: pipelined,
    // they leave in one write instead of one each (the blocking stream reads stay alone on their connections).
    redisClient = deps.redis.duplicate({ enableAutoPipelining: true, autoPipeliningIgnoredCommands: ['xread'] });
    const streams = createAdapter(redisClient, { streamName: 'crm:realtime', sessionKeyPrefix: 'crm:realtime:session:', maxLen: deps.recoveryStreamLength ?? 100_000 });
    // Socket.IO calls the adapter factory with `new`: a function, not an arrow.
    adapter = function deferredReplayStreamsAdapter(nsp: unknown) {
      const a = streams(nsp);
      const restore = a.restoreSession.bind(a);
      a.restoreSession = async (pid: PrivateSessionId, offset: string) => deferReplay(await restore(pid, offset));
      return a;
    };
  } else if (recoveryMs > 0) {
    adapter = DeferredReplaySessionAdapter;
  }
  const io = new Server<ClientToServerEvents, ServerToClientEvents, InterServerEvents, SocketData>(deps.server, {
    serveClient: false,
    cors: { origin: false },
    ...(adapter !== undefined ? { adapter } : {}),
    // The handshake middleware runs on a recovered socket too: its token is checked again.
    ...(recoveryMs > 0 ? { connectionStateRecovery: { maxDisconnectionDuration: recoveryMs, skipMiddlewares: false } } : {}),
  });
  const nsp: Namespace<ClientToServerEvents, ServerToClientEvents, InterServerEvents, SocketData> = io.of(REALTIME_NAMESPACE);

  nsp.use((socket, next) => {
    const scope = scopeOf(socket);
    if (scope === undefined) {
      next(handshakeError('invalid_scope', 'scope must be "entity" or "subscriptions"'));
      return;
    }
    socket.data.scope = scope;
    const token = tokenOf(socket);
    if (token === undefined) {
      next(handshakeError('unauthenticated', 'A token is required'));
      return;
    }
    deps.authenticator.authenticate(token).then(
      (principal) => {
        socket.data.principal = principal;
        next();
      },
      (err: unknown) => next(err instanceof AppError ? handshakeError(err.code, err.message) : handshakeError('invalid_token', 'The token is not valid')),
    );
  });

  nsp.on('connection', (socket: GatewaySocket) => {
    const { principal, recoveredSession, scope } = socket.data;
    delete socket.data.recoveredSession;
    const own = entityRoom(principal.entityId);
    if (socket.recovered) {
      // The session's rooms came back with it: keep only those of the entity this token is for.
      for (const room of [...socket.rooms]) if (room !== socket.id && room !== own && !room.startsWith(`${own}:`)) void socket.leave(room);
    }
    if (scope === 'entity') void socket.join(own);
    else void socket.leave(own);
    socket.emit('interaction.ready', { entity_id: principal.entityId, user_id: principal.userId, employee_id: principal.employeeId, socket_id: socket.id });
    if (socket.recovered && recoveredSession?.userId === principal.userId && recoveredSession.entityId === principal.entityId) {
      // Written to this socket as Socket.IO's own recovery writes them (not re-broadcast: they already carry
      // their offset, the last argument, which the client keeps for its next reconnection).
      const raw = socket as unknown as { packet(packet: { type: PacketType; data: unknown[] }): void };
      for (const data of recoveredSession.missedPackets) raw.packet({ type: PacketType.EVENT, data });
    }
    socket.on('interaction.chat.subscribe', (body, ack) => {
      const result = roomsFor(principal.entityId, body);
      if ('error' in result) {
        if (typeof ack === 'function') ack({ ok: false, error: result.error });
        return;
      }
      void socket.join(result.rooms);
      if (typeof ack === 'function') ack({ ok: true, rooms: result.rooms });
    });
    socket.on('interaction.chat.unsubscribe', (body, ack) => {
      const result = roomsFor(principal.entityId, body);
      if (!('error' in result)) for (const room of result.rooms) void socket.leave(room);
      if (typeof ack === 'function') ack('error' in result ? { ok: false, error: result.error } : { ok: true, rooms: result.rooms });
    });
  });

  let intervalMs = deps.authCheckIntervalMs ?? 2000;
  let timer: NodeJS.Timeout | undefined;
  let checking = false;
  const schedule = () => {
    if (timer) clearInterval(timer);
    timer = setInterval(() => {
      if (checking) return;
      checking = true;
      void reauthorize().finally(() => (checking = false));
    }, intervalMs);
    timer.unref();
  };

  async function reauthorize(): Promise<void> {
    const sockets = [...nsp.sockets.values()];
    if (sockets.length === 0) return;
    const now = Date.now() / 1000;
    const pairs = new Map<string, { userId: number; entityId: number }>();
    for (const socket of sockets) {
      const { principal } = socket.data;
      if (principal.expiresAt <= now) {
        socket.emit('interaction.session.expired', { reason: 'token_expired' });
        socket.disconnect(true);
        continue;
      }
      pairs.set(`${principal.userId}:${principal.entityId}`, { userId: principal.userId, entityId: principal.entityId });
    }
    if (pairs.size === 0) return;
    try {
      const active = await deps.activeMemberships([...pairs.values()]);
      for (const socket of nsp.sockets.values()) {
        const { principal } = socket.data;
        if (!active.has(`${principal.userId}:${principal.entityId}`)) {
          socket.emit('interaction.session.expired', { reason: 'membership_revoked' });
          socket.disconnect(true);
        }
      }
    } catch (err) {
      deps.log.error({ err }, 'realtime re-authorization failed');
    }
  }
  schedule();

  return {
    toEntity(entityId, event, payload, target = {}) {
      const rooms = [entityRoom(entityId)];
      if (target.externalChatId !== undefined) rooms.push(chatRoom(entityId, target.externalChatId));
      if (target.conversationId !== undefined) rooms.push(conversationRoom(entityId, target.conversationId));
      // Socket.IO's types cannot pair a generic event name with its payload; `toEntity`'s signature does.
      const broadcast = nsp.to(rooms) as unknown as { emit(event: string, payload: unknown): boolean };
      broadcast.emit(event, payload);
    },
    configure(options) {
      if (options.authCheckIntervalMs !== undefined) {
        intervalMs = options.authCheckIntervalMs;
        schedule();
      }
    },
    socketCount: () => nsp.sockets.size,
    async close() {
      if (timer) clearInterval(timer);
      await new Promise<void>((resolve) => {
        void io.close(() => resolve());
      });
      redisClient?.disconnect();
    },
  };
}

function tokenOf(socket: GatewaySocket): string | undefined {
  const auth = socket.handshake.auth as Record<string, unknown> | undefined;
  if (typeof auth?.token === 'string' && auth.token !== '') return auth.token.replace(/^Bearer\s+/i, '');
  const header = socket.handshake.headers.authorization;
  if (typeof header === 'string') {
    const m = /^Bearer\s+(.+)$/i.exec(header.trim());
    if (m) return m[1];
  }
  const query = socket.handshake.query.token;
  if (typeof query === 'string' && query !== '') return query;
  return undefined;
}

/**
 * What a socket hears, from `auth.scope` or the `scope` query parameter: `entity` (default) joins the
 * entity room and hears every event of the entity; `subscriptions` hears only the chats and conversations
 * it subscribes to (a chat window that does not follow the whole inbox). Undefined for any other value.
 */
function scopeOf(socket: GatewaySocket): 'entity' | 'subscriptions' | undefined {
  const auth = socket.handshake.auth as Record<string, unknown> | undefined;
  const scope = auth?.scope ?? socket.handshake.query.scope ?? 'entity';
  return scope === 'entity' || scope === 'subscriptions' ? scope : undefined;
}

function handshakeError(code: string, message: string): Error {
  const err = new Error(message) as Error & { data: { code: string } };
  err.data = { code };
  return err;
}

/**
 * Rooms a subscribe/unsubscribe request names: `{ external_chat_id?, conversation_id?, entity_id? }`.
 * An `entity_id` other than the socket's own is refused: a socket never listens to another entity.
 */
function roomsFor(entityId: number, body: unknown): { rooms: string[] } | { error: Extract<SubscriptionAck, { ok: false }>['error'] } {
  if (typeof body !== 'object' || body === null) return { error: 'invalid_request' };
  const b = body as Record<string, unknown>;
  if (b.entity_id !== undefined && b.entity_id !== entityId) return { error: 'entity_not_allowed' };
  const rooms: string[] = [];
  if (typeof b.external_chat_id === 'string' && b.external_chat_id !== '' && b.external_chat_id.length <= 256) rooms.push(chatRoom(entityId, b.external_chat_id));
  if (typeof b.conversation_id === 'number' && Number.isInteger(b.conversation_id) && b.conversation_id > 0) rooms.push(conversationRoom(entityId, b.conversation_id));
  return rooms.length === 0 ? { error: 'invalid_request' } : { rooms };
}
