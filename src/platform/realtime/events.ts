/**
 * The typed contract of Socket.IO namespace `/interactions` (DESIGN "Realtime", docs/api.md "Realtime"):
 * `ClientToServerEvents` (chat subscriptions and their ack) and `ServerToClientEvents`, given to
 * Socket.IO's generics. The platform declares its own server events (`interaction.ready`,
 * `interaction.session.expired`); modules add theirs by augmenting `ServerToClientEvents` and register
 * each one's payload schema with `defineServerEvent`, so the documentation test can compare docs/api.md
 * with what the server really emits. Imports no module.
 */
import { Type, type Static, type TSchema } from 'typebox';

/** `interaction.ready`: sent to a socket once it has joined its entity room. */
const ReadyPayload = Type.Object({ entity_id: Type.Integer(), user_id: Type.Integer(), employee_id: Type.Integer(), socket_id: Type.String() });
type ReadyPayload = Static<typeof ReadyPayload>;

const SESSION_EXPIRY_REASONS = ['token_expired', 'membership_revoked'] as const;
/** `interaction.session.expired`: sent right before a stale socket is disconnected. */
const SessionExpiredPayload = Type.Object({ reason: Type.Enum(SESSION_EXPIRY_REASONS) });
type SessionExpiredPayload = Static<typeof SessionExpiredPayload>;

/** Body of `interaction.chat.subscribe` / `unsubscribe`: the chat and/or conversation rooms of the socket's entity. */
const ChatSubscription = Type.Object({
  external_chat_id: Type.Optional(Type.String()),
  conversation_id: Type.Optional(Type.Integer()),
  entity_id: Type.Optional(Type.Integer()),
});
type ChatSubscription = Static<typeof ChatSubscription>;

const SUBSCRIPTION_ERRORS = ['entity_not_allowed', 'invalid_request', 'not_found'] as const;
export const SubscriptionAck = Type.Union([
  Type.Object({ ok: Type.Literal(true), rooms: Type.Array(Type.String()) }),
  Type.Object({ ok: Type.Literal(false), error: Type.Enum(SUBSCRIPTION_ERRORS) }),
]);
export type SubscriptionAck = Static<typeof SubscriptionAck>;

/** Events a client sends; the body is checked at run time (`unknown` until then), the ack is optional. */
export interface ClientToServerEvents {
  'interaction.chat.subscribe': (body: unknown, ack?: (response: SubscriptionAck) => void) => void;
  'interaction.chat.unsubscribe': (body: unknown, ack?: (response: SubscriptionAck) => void) => void;
}

/**
 * Events the server sends, one payload argument each. Modules add theirs with
 * `declare module '.../platform/realtime/events.js' { interface ServerToClientEvents { ... } }`.
 */
export interface ServerToClientEvents {
  'interaction.ready': (payload: ReadyPayload) => void;
  'interaction.session.expired': (payload: SessionExpiredPayload) => void;
}

export type ServerEventName = keyof ServerToClientEvents;
export type ServerEventPayload<E extends ServerEventName> = Parameters<ServerToClientEvents[E]>[0];

/**
 * Events the server sends a website chat visitor's sockets (namespace `/widget`), one payload argument each.
 * The web channel declares them by augmenting this interface, like `ServerToClientEvents`.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging
export interface VisitorServerEvents {}

export type VisitorEventName = keyof VisitorServerEvents;
export type VisitorEventPayload<E extends VisitorEventName> = Parameters<VisitorServerEvents[E]>[0];

/**
 * Where an event goes besides the entity room (whose sockets see every conversation): the chat and
 * conversation rooms it concerns, and the rooms of the agents who see it without seeing the whole entity
 * (its assignee's, its routing queue's, its lead's sellers'; see `RealtimeAudience`).
 */
export interface RealtimeTarget {
  externalChatId?: string | undefined;
  conversationId?: number | undefined;
  employeeIds?: readonly number[] | undefined;
  queueId?: number | null | undefined;
  leadId?: number | undefined;
  /**
   * A personal event (a notification): only the sockets of the members `employeeIds`, whatever their scope, and
   * no other room (not the entity's). The other fields are ignored.
   */
  personal?: boolean | undefined;
}

/** A socket's member, as the audience resolver is asked about it. */
export interface AudienceMember {
  userId: number;
  entityId: number;
  employeeId: number;
  clientKind: string;
}

/** What a member hears: the whole entity, or the rooms of their own, their queues' and their leads' conversations. */
export interface AudienceScope {
  viewAll: boolean;
  queueIds: readonly number[];
  leadIds: readonly number[];
}

/**
 * Who hears which conversation (issue 30), answered by the modules at composition (`Realtime.useAudience`):
 * the platform knows rooms, not conversations. Without one every socket hears its whole entity.
 */
export interface RealtimeAudience {
  /** Per member key `${userId}:${entityId}` (absent: not a member any more). Called at connection and at every re-authorization. */
  scopes(members: AudienceMember[]): Promise<Map<string, AudienceScope>>;
  /** The subset of `target` a member without the whole entity may see (chat and conversation subscriptions). */
  visible(
    member: AudienceMember,
    target: { conversationIds: readonly number[]; externalChatIds: readonly string[] },
  ): Promise<{ conversationIds: number[]; externalChatIds: string[] }>;
}

/**
 * Anything that emits socket events: the publisher itself (`ctx.publisher`: ephemeral events, or events of a
 * change already committed), or a change's collector, published after its commit (`ChangeEvents`).
 */
export interface RealtimeEmitter {
  /** Emits `event` to every agent socket of `entityId` (and the rooms of `target`); each socket receives it once. */
  toEntity<E extends ServerEventName>(entityId: number, event: E, payload: ServerEventPayload<E>, target?: RealtimeTarget): void;
  /** Emits `event` to every socket of the visitor of chat `externalChatId` on the website `websiteToken` (any instance). */
  toVisitor<E extends VisitorEventName>(websiteToken: string, externalChatId: string, event: E, payload: VisitorEventPayload<E>): void;
}

const serverEvents = new Map<string, TSchema>();

/**
 * Registers the payload schema of a server event declared in `ServerToClientEvents` (the schema's static
 * type must be that payload). Called once per event at module load; the registry feeds the docs test.
 */
export function defineServerEvent<E extends ServerEventName, S extends TSchema>(
  event: E,
  schema: S & (Static<S> extends ServerEventPayload<E> ? unknown : never),
): void {
  serverEvents.set(event, schema);
}

/** The registered server events and their payload schemas (documentation checks). */
export function serverEventRegistry(): ReadonlyMap<string, TSchema> {
  return serverEvents;
}

/** The client events and their body schemas (documentation checks). */
export const CLIENT_EVENTS: Readonly<Record<keyof ClientToServerEvents, TSchema>> = {
  'interaction.chat.subscribe': ChatSubscription,
  'interaction.chat.unsubscribe': ChatSubscription,
};

defineServerEvent('interaction.ready', ReadyPayload);
defineServerEvent('interaction.session.expired', SessionExpiredPayload);
