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
import { SessionAwareAdapter, type PrivateSessionId, type Session } from 'socket.io-adapter';
import { PacketType } from 'socket.io-parser';
import type { Redis } from 'ioredis';
import type { FastifyBaseLogger } from 'fastify';
import type { Authenticator, Principal } from '../auth/authenticator.js';
import { AppError } from '../errors.js';
import type {
  AudienceMember,
  AudienceScope,
  ClientToServerEvents,
  RealtimeAudience,
  RealtimeEmitter,
  ServerToClientEvents,
  SubscriptionAck,
} from './events.js';
import { broadcastsSince, compareOffsets, deliverInStreamOrder, offsetOfEncoded } from './stream-order.js';
import { createPublisher } from './publisher.js';
import { chatRoom, conversationRoom, employeeRoom, entityRoom, leadRoom, memberRoom, queueRoom } from './rooms.js';
import { createStreamsAdapter } from './stream-reader.js';

const REALTIME_NAMESPACE = '/interactions';
/** The Redis stream the instances broadcast through (and recovery reads back). */

/** The website chat visitors' namespace (issue 32): its handshake is the web channel's, its broadcasts the publisher's. */
const VISITOR_NAMESPACE = '/widget';
/** Rooms the gateway manages from a member's audience scope (never joined on a client's request). */
const AUDIENCE_ROOM = /:(employee|queue|lead):\d+$/;
/** The member's own room, joined at connection and never re-scoped. */
const MEMBER_ROOM = /:member:\d+$/;
const CHAT_ROOM = /:chat:(.+)$/;
const CONVERSATION_ROOM = /:conversation:(\d+)$/;

export interface Realtime {
  /** The one publisher of socket events, to agents and to visitors (publisher.ts); modules get it as `ctx.publisher`. */
  readonly publisher: RealtimeEmitter;
  /** Changes how often sockets are re-authorized (tests use a short interval). */
  configure(options: { authCheckIntervalMs?: number }): void;
  /**
   * Who hears which conversation (conversation visibility), set once at composition: from then on only
   * members whose scope says `viewAll` join the entity room; the others join their own, their queues' and
   * their leads' rooms, and are re-scoped at every re-authorization.
   */
  useAudience(audience: RealtimeAudience): void;
  /**
   * Another namespace on the same server and adapter (its broadcasts cross instances like the gateway's), for
   * clients that are not members and bring their own handshake: the website chat's visitors (`/widget`,
   * issue 32). Its owner authenticates its sockets; `close` closes it with the rest.
   */
  namespace(name: string): Namespace;
  /** Number of connected sockets (metrics, tests). */
  socketCount(): number;
  /**
   * Drops every client's connection and refuses new ones (shutdown): clients reconnect, through the load
   * balancer, to another instance and get what they missed there (recovery). Emitting still works until `close`.
   */
  disconnectClients(): void;
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
  /**
   * Prefix of this deployment's Redis keys (`<prefix>:realtime` stream, `<prefix>:realtime:session:*`): two
   * deployments sharing one Redis must differ, or each hears the other's broadcasts. Default `crm`.
   */
  redisKeyPrefix?: string;
}

/** What a restored session held, kept aside until the reconnecting socket is authorized again. */
interface RecoveredSession {
  userId: number | undefined;
  entityId: number | undefined;
  missedPackets: unknown[][];
}

interface SocketData {
  /** Set by the handshake middleware; unset only while a recovering socket's handshake is checked again. */
  principal: Principal;
  /** What the socket hears, from its handshake (`scopeOf`). */
  scope: 'entity' | 'subscriptions';
  /** False once the audience said the member sees only some conversations (subscriptions are then checked). */
  viewAll?: boolean;
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
  const streamName = `${deps.redisKeyPrefix ?? 'crm'}:realtime`;
  let redisClient: Redis | undefined;
  let adapter: Parameters<Server['adapter']>[0] | undefined;
  if (deps.redis) {
    // Every broadcast is one XADD, and a change's events are broadcast in one turn of the event loop: pipelined,
    // they leave in one write instead of one each (the blocking stream reads stay alone on their connections).
    redisClient = deps.redis.duplicate({ enableAutoPipelining: true, autoPipeliningIgnoredCommands: ['xread'] });
    // Its reader starts from the stream's last entry now, not from whatever comes after its first read (issue 47).
    const streams = createStreamsAdapter(redisClient, {
      streamName,
      sessionKeyPrefix: `${streamName}:session:`,
      maxLen: deps.recoveryStreamLength ?? 100_000,
    });
    // Socket.IO calls the adapter factory with `new`: a function, not an arrow.
    adapter = function deferredReplayStreamsAdapter(nsp: unknown) {
      const a = deliverInStreamOrder(streams(nsp), (err) => deps.log.error({ err }, 'realtime broadcast not written to the stream'));
      const restore = a.restoreSession.bind(a);
      a.restoreSession = async (pid: PrivateSessionId, offset: string) => deferReplay(await restore(pid, offset));
      return a;
    };
  } else if (recoveryMs > 0) {
    adapter = DeferredReplaySessionAdapter;
  }
  let draining = false;
  /** Namespaces other modules opened (`namespace`): their clients are dropped on shutdown too. */
  const others: Namespace[] = [];
  const io = new Server<ClientToServerEvents, ServerToClientEvents, InterServerEvents, SocketData>(deps.server, {
    serveClient: false,
    // A refused handshake is a connection error, which Socket.IO clients retry (unlike a middleware refusal).
    allowRequest: (_req, callback) => callback(draining ? 'shutting down' : null, !draining),
    cors: { origin: false },
    ...(adapter !== undefined ? { adapter } : {}),
    // The handshake middleware runs on a recovered socket too: its token is checked again.
    ...(recoveryMs > 0 ? { connectionStateRecovery: { maxDisconnectionDuration: recoveryMs, skipMiddlewares: false } } : {}),
  });
  const nsp: Namespace<ClientToServerEvents, ServerToClientEvents, InterServerEvents, SocketData> = io.of(REALTIME_NAMESPACE);

  /** Broadcasts held for recovered sockets still being re-authorized, released by the connection handler. */
  const held = new WeakMap<GatewaySocket, HeldBroadcasts>();
  nsp.use((socket, next) => {
    if (socket.recovered) {
      const hold = holdBroadcasts(nsp, socket);
      held.set(socket, hold);
      const proceed = next;
      next = (err?: Error) => {
        if (err) {
          hold.release(false);
          nsp.sockets.delete(socket.id);
        }
        proceed(err);
      };
    }
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
    // Every socket hears its member's personal events (notifications), whatever its scope.
    void socket.join(memberRoom(principal.entityId, principal.employeeId));
    if (socket.recovered) {
      // The session's rooms came back with it: keep only those of the entity this token is for.
      for (const room of [...socket.rooms]) if (room !== socket.id && room !== own && !room.startsWith(`${own}:`)) void socket.leave(room);
    }
    // Subscriptions wait for the socket's scope (a restricted member's are checked against what it sees).
    const scoped = audience === undefined ? Promise.resolve() : rescope([socket]);
    socket.on('interaction.chat.subscribe', (body, ack) => {
      const result = roomsFor(principal.entityId, body);
      if ('error' in result) {
        if (typeof ack === 'function') ack({ ok: false, error: result.error });
        return;
      }
      void scoped
        .then(() => (socket.data.viewAll === false ? visibleRooms(socket, result.rooms) : result.rooms))
        .then(
          (rooms) => {
            if (rooms.length < result.rooms.length) {
              if (typeof ack === 'function') ack({ ok: false, error: 'not_found' });
              return;
            }
            void socket.join(rooms);
            if (typeof ack === 'function') ack({ ok: true, rooms });
          },
          (err: unknown) => {
            deps.log.error({ err }, 'realtime subscription check failed');
            if (typeof ack === 'function') ack({ ok: false, error: 'not_found' });
          },
        );
    });
    socket.on('interaction.chat.unsubscribe', (body, ack) => {
      const result = roomsFor(principal.entityId, body);
      if (!('error' in result)) for (const room of result.rooms) void socket.leave(room);
      if (typeof ack === 'function') ack('error' in result ? { ok: false, error: result.error } : { ok: true, rooms: result.rooms });
    });
    if (audience === undefined) {
      if (scope === 'entity') void socket.join(own);
      else void socket.leave(own);
      greet(socket, recoveredSession);
      return;
    }
    scoped.then(
      () => greet(socket, recoveredSession),
      (err: unknown) => {
        deps.log.error({ err }, 'realtime audience failed');
        held.get(socket)?.release(false);
        held.delete(socket);
        socket.disconnect(true);
      },
    );
  });

  /**
   * Replays what a recovered socket missed (the restored packets, then on Redis what the stream reader passed
   * while it was away), releases what was held for it, then says `interaction.ready`.
   */
  function greet(socket: GatewaySocket, recoveredSession: RecoveredSession | undefined): void {
    const { principal } = socket.data;
    const sameSession = socket.recovered && recoveredSession?.userId === principal.userId && recoveredSession.entityId === principal.entityId;
    const ready = () =>
      socket.emit('interaction.ready', { entity_id: principal.entityId, user_id: principal.userId, employee_id: principal.employeeId, socket_id: socket.id });
    const hold = held.get(socket);
    held.delete(socket);
    if (!sameSession || recoveredSession === undefined) {
      hold?.release(false);
      ready();
      return;
    }
    void replayMissed(socket, recoveredSession.missedPackets).then(
      (upTo) => {
        // Then what was broadcast to its rooms while it was re-authorized and not replayed already, and only then
        // `ready` (an emit goes through the adapter too, with its offset, so it would otherwise be held).
        hold?.release(true, upTo);
        ready();
      },
      (err: unknown) => {
        // Without the whole replay the client would resume after a gap: it starts over (a new session).
        deps.log.warn({ err, socketId: socket.id }, 'realtime recovery failed: the client starts a new session');
        hold?.release(false);
        socket.disconnect(true);
      },
    );
  }

  let audience: RealtimeAudience | undefined;
  const memberOf = (p: Principal): AudienceMember => ({ userId: p.userId, entityId: p.entityId, employeeId: p.employeeId, clientKind: p.clientKind });

  /**
   * Puts each socket in the rooms its member's current scope allows (one `scopes` call for all): the entity
   * room with `viewAll`, else its employee, queue and lead rooms; a restricted socket also leaves the chat and
   * conversation rooms it may no longer see. A member the audience no longer knows is left alone here (the
   * membership check disconnects it).
   */
  async function rescope(sockets: GatewaySocket[]): Promise<void> {
    if (audience === undefined) return;
    const members = new Map<string, AudienceMember>();
    for (const socket of sockets) {
      const principal = socket.data.principal as Principal | undefined;
      if (principal !== undefined) members.set(`${principal.userId}:${principal.entityId}`, memberOf(principal));
    }
    if (members.size === 0) return;
    const scopes = await audience.scopes([...members.values()]);
    await Promise.all(
      sockets.map(async (socket) => {
        const principal = socket.data.principal as Principal | undefined;
        if (principal === undefined) return;
        const scope = scopes.get(`${principal.userId}:${principal.entityId}`);
        if (scope === undefined) return;
        await applyScope(socket, principal, scope);
      }),
    );
  }

  async function applyScope(socket: GatewaySocket, principal: Principal, scope: AudienceScope): Promise<void> {
    const e = principal.entityId;
    const own = entityRoom(e);
    const wanted = new Set<string>();
    if (socket.data.scope === 'entity') {
      if (scope.viewAll) wanted.add(own);
      else {
        wanted.add(employeeRoom(e, principal.employeeId));
        for (const q of scope.queueIds) wanted.add(queueRoom(e, q));
        for (const l of scope.leadIds) wanted.add(leadRoom(e, l));
      }
    }
    socket.data.viewAll = scope.viewAll;
    const subscribed: string[] = [];
    for (const room of socket.rooms) {
      if (room === socket.id || MEMBER_ROOM.test(room)) continue;
      if (room === own || AUDIENCE_ROOM.test(room)) {
        if (!wanted.has(room)) void socket.leave(room);
      } else if (!scope.viewAll) subscribed.push(room);
    }
    const joining = [...wanted].filter((room) => !socket.rooms.has(room));
    if (joining.length > 0) void socket.join(joining);
    if (subscribed.length > 0) {
      const keep = new Set(await visibleRooms(socket, subscribed));
      for (const room of subscribed) if (!keep.has(room)) void socket.leave(room);
    }
  }

  /** The chat and conversation rooms of `rooms` the socket's (restricted) member may see. */
  async function visibleRooms(socket: GatewaySocket, rooms: string[]): Promise<string[]> {
    if (audience === undefined) return rooms;
    const conversationIds: number[] = [];
    const externalChatIds: string[] = [];
    for (const room of rooms) {
      const c = CONVERSATION_ROOM.exec(room);
      if (c) conversationIds.push(Number(c[1]));
      else {
        const chat = CHAT_ROOM.exec(room);
        if (chat) externalChatIds.push(chat[1]!);
      }
    }
    const principal = socket.data.principal;
    const seen = await audience.visible(memberOf(principal), { conversationIds, externalChatIds });
    const ok = new Set([
      ...seen.conversationIds.map((id) => conversationRoom(principal.entityId, id)),
      ...seen.externalChatIds.map((id) => chatRoom(principal.entityId, id)),
    ]);
    return rooms.filter((room) => ok.has(room));
  }

  /**
   * Writes to a recovered socket what it missed: the packets the adapter's restore read (`missedPackets`), then,
   * on Redis, what was written to the stream between that read and the socket's return to its rooms (the stream
   * reader delivered those while it was in none). Resolves with the offset up to which the stream was replayed
   * (what the reader delivers at or before it is a duplicate), undefined without Redis.
   */
  async function replayMissed(socket: GatewaySocket, missedPackets: unknown[][]): Promise<string | undefined> {
    // Written as Socket.IO's own recovery writes them (not re-broadcast: they already carry their offset, the
    // last argument, which the client keeps for its next reconnection).
    const raw = socket as unknown as { packet(packet: { type: PacketType; data: unknown[] }): void };
    for (const data of missedPackets) raw.packet({ type: PacketType.EVENT, data });
    if (redisClient === undefined) return undefined;
    const lastMissed = missedPackets.at(-1)?.at(-1);
    const handshakeOffset = (socket.handshake.auth as Record<string, unknown> | undefined)?.offset;
    const from = typeof lastMissed === 'string' ? lastMissed : typeof handshakeOffset === 'string' ? handshakeOffset : undefined;
    if (from === undefined) return undefined;
    const { packets, upTo } = await broadcastsSince(redisClient, streamName, nsp.name, from, socket.rooms);
    for (const data of packets) raw.packet({ type: PacketType.EVENT, data });
    return upTo;
  }

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
    const judged: GatewaySocket[] = [];
    for (const socket of sockets) {
      const principal = socket.data.principal as Principal | undefined;
      // A recovering socket is listed before its handshake is checked again (holdBroadcasts): not yet ours to judge.
      if (principal === undefined) continue;
      if (principal.expiresAt <= now) {
        endSession(socket, 'token_expired', deps.log);
        continue;
      }
      judged.push(socket);
      pairs.set(`${principal.userId}:${principal.entityId}`, { userId: principal.userId, entityId: principal.entityId });
    }
    if (pairs.size === 0) return;
    try {
      const active = await deps.activeMemberships([...pairs.values()]);
      // Only the sockets whose pairs were asked: one that connected while the answer was awaited was checked by its
      // own handshake, and its pair is not in this answer.
      for (const socket of judged) {
        const { principal } = socket.data;
        if (socket.connected && !active.has(`${principal.userId}:${principal.entityId}`)) endSession(socket, 'membership_revoked', deps.log);
      }
      // Then what each remaining socket may hear (reassigned, removed from a queue, permission revoked).
      await rescope(judged.filter((socket) => socket.connected));
    } catch (err) {
      deps.log.error({ err }, 'realtime re-authorization failed');
    }
  }
  schedule();

  const visitors = io.of(VISITOR_NAMESPACE);
  return {
    publisher: createPublisher(nsp, visitors),
    useAudience(a) {
      audience = a;
    },
    configure(options) {
      if (options.authCheckIntervalMs !== undefined) {
        intervalMs = options.authCheckIntervalMs;
        schedule();
      }
    },
    namespace(name) {
      if (name === REALTIME_NAMESPACE) throw new Error(`${name} is the gateway's own namespace`);
      const other = io.of(name);
      others.push(other);
      return other;
    },
    socketCount: () => nsp.sockets.size,
    disconnectClients() {
      draining = true;
      // Closing the transport (not `socket.disconnect()`) keeps the session for recovery and lets the client reconnect.
      for (const socket of nsp.sockets.values()) socket.conn.close();
      for (const other of others) for (const socket of other.sockets.values()) socket.conn.close();
    },
    async close() {
      if (timer) clearInterval(timer);
      await new Promise<void>((resolve) => {
        void io.close(() => resolve());
      });
      // QUIT, not a disconnect: the last broadcasts and sessions still being written reach Redis first.
      await redisClient?.quit().catch(() => undefined);
    },
  };
}

interface HeldBroadcasts {
  /**
   * Stops holding; with `deliver`, writes what was held, in order. With `replayedUpTo` (a stream offset), what
   * carries an offset at or before it was replayed already: it is dropped, held or still to come from the stream
   * reader (which delivers in stream order, so the first newer packet ends the filtering).
   */
  release(deliver: boolean, replayedUpTo?: string): void;
}

/**
 * A recovered socket is back in its rooms from its creation, but Socket.IO adds it to the namespace (where
 * broadcasts find it) only once the handshake middleware has re-authorized it: what its rooms were sent in
 * between was lost to it (a burst of events during a rolling restart). Listed at once, its broadcasts (the
 * pre-encoded writes; its own packets pass) are held until `release`, which the connection handler calls after
 * replaying the missed packets, or the middleware on a refusal (nothing delivered; it unlists the socket).
 */
function holdBroadcasts(nsp: Namespace<ClientToServerEvents, ServerToClientEvents, InterServerEvents, SocketData>, socket: GatewaySocket): HeldBroadcasts {
  type Write = (this: unknown, packets: unknown, opts: { preEncoded?: boolean }) => void;
  const client = socket.client as unknown as { writeToEngine: Write };
  const write = client.writeToEngine;
  const pending: [unknown, { preEncoded?: boolean }][] = [];
  client.writeToEngine = function (packets, opts) {
    if (opts?.preEncoded === true) pending.push([packets, opts]);
    else write.call(client, packets, opts);
  };
  nsp.sockets.set(socket.id, socket);
  let released = false;
  return {
    release(deliver, replayedUpTo) {
      if (released) return;
      released = true;
      const replayed = (packets: unknown) => {
        const offset = replayedUpTo === undefined ? undefined : offsetOfEncoded(packets);
        return offset !== undefined && compareOffsets(offset, replayedUpTo!) <= 0;
      };
      client.writeToEngine = write;
      if (deliver) for (const [packets, opts] of pending) if (!replayed(packets)) write.call(client, packets, opts);
      pending.length = 0;
      if (!deliver || replayedUpTo === undefined) return;
      client.writeToEngine = function (packets, opts) {
        if (opts?.preEncoded === true) {
          if (replayed(packets)) return;
          if (offsetOfEncoded(packets) !== undefined) client.writeToEngine = write;
        }
        write.call(client, packets, opts);
      };
    },
  };
}

/**
 * Tells the socket why (`interaction.session.expired`), then disconnects it for good. The event is written to this
 * socket directly: an emit goes through the Redis stream first and would arrive after the disconnection.
 */
function endSession(socket: GatewaySocket, reason: 'token_expired' | 'membership_revoked', log: Pick<FastifyBaseLogger, 'info'>): void {
  const { principal } = socket.data;
  log.info({ socketId: socket.id, userId: principal.userId, entityId: principal.entityId, reason }, 'realtime session ended');
  const raw = socket as unknown as { packet(packet: { type: PacketType; data: unknown[] }): void };
  raw.packet({ type: PacketType.EVENT, data: ['interaction.session.expired', { reason }] });
  socket.disconnect(true);
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
  if (typeof b.external_chat_id === 'string' && b.external_chat_id !== '' && b.external_chat_id.length <= 256)
    rooms.push(chatRoom(entityId, b.external_chat_id));
  if (typeof b.conversation_id === 'number' && Number.isInteger(b.conversation_id) && b.conversation_id > 0)
    rooms.push(conversationRoom(entityId, b.conversation_id));
  return rooms.length === 0 ? { error: 'invalid_request' } : { rooms };
}
