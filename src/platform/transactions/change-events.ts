/**
 * What a change publishes once it has committed: socket events (to the entity's agents and to website
 * visitors, through the one publisher) and domain events, collected in order while the change runs (docs/architecture.md "Units of work and publishing"). Inside a
 * transaction the collector is the unit of work's `events` and `transaction()` publishes it; a change made of
 * one autocommitted statement collects into `new ChangeEvents()` and calls `publish` itself afterwards
 * (only realtime events and domain events without durable consumers may go that way). Both lists stay
 * typed: a realtime event is one of `ServerToClientEvents` with its payload, a domain event one of
 * `DomainEventMap`.
 */
import type { UnitOfWork } from './unit-of-work.js';
import type { DomainEventMap } from '../events/domain-events.js';
import type { RealtimeEmitter, RealtimeTarget, ServerEventName, ServerEventPayload, VisitorEventName, VisitorEventPayload } from '../realtime/events.js';

type AgentEvent = { [E in ServerEventName]: { entityId: number; event: E; payload: ServerEventPayload<E>; target: RealtimeTarget } }[ServerEventName];
type VisitorEvent = {
  [E in VisitorEventName]: { websiteToken: string; externalChatId: string; event: E; payload: VisitorEventPayload<E> };
}[VisitorEventName];
/** A socket event for agents or for a visitor, kept in the order the change emitted them. */
type RealtimeEvent = ({ to: 'agents' } & AgentEvent) | ({ to: 'visitor' } & VisitorEvent);
type DomainEvent = { [K in keyof DomainEventMap]: { name: K; payload: DomainEventMap[K] } }[keyof DomainEventMap];

/** The part of the event bus a change publishes through (`EventBus` from platform/events). */
export interface DomainEventSink {
  /** Writes one job per interested durable consumer of each event, in the unit's transaction. */
  enqueueDurable(unit: UnitOfWork, events: { name: keyof DomainEventMap; payload: unknown }[]): Promise<void>;
  /** Delivers to in-process subscribers (after the commit). */
  deliver<K extends keyof DomainEventMap>(name: K, payload: DomainEventMap[K], options: { durableEnqueued: boolean }): Promise<void>;
}

/** Where a change's events go: the socket publisher and the event bus. */
export interface Publishers {
  /** The socket publisher (`ctx.publisher`); needed by changes that emit socket events. */
  realtime?: RealtimeEmitter | undefined;
  events: DomainEventSink;
}

export class ChangeEvents implements RealtimeEmitter {
  private readonly realtime: RealtimeEvent[] = [];
  private readonly domain: DomainEvent[] = [];
  private durableEnqueued = false;

  toEntity<E extends ServerEventName>(entityId: number, event: E, payload: ServerEventPayload<E>, target: RealtimeTarget = {}): void {
    this.realtime.push({ to: 'agents', entityId, event, payload, target } as RealtimeEvent);
  }

  toVisitor<E extends VisitorEventName>(websiteToken: string, externalChatId: string, event: E, payload: VisitorEventPayload<E>): void {
    this.realtime.push({ to: 'visitor', websiteToken, externalChatId, event, payload } as RealtimeEvent);
  }

  /** Queues domain event `name`. */
  domainEvent<K extends keyof DomainEventMap>(name: K, payload: DomainEventMap[K]): void {
    this.domain.push({ name, payload } as DomainEvent);
  }

  /** Inside the transaction, before it commits: the durable consumers' jobs for the collected domain events. */
  async enqueueDurable(unit: UnitOfWork, events: DomainEventSink): Promise<void> {
    if (this.domain.length > 0) await events.enqueueDurable(unit, this.domain);
    this.durableEnqueued = true;
  }

  /** Emits the realtime events, then delivers the domain events in process, each in the order they were collected. */
  async publish(to: Publishers): Promise<void> {
    if (this.realtime.length > 0 && !to.realtime) throw new Error('a change emitted socket events but was published without the publisher');
    for (const r of this.realtime) emit(to.realtime!, r);
    for (const d of this.domain) await to.events.deliver(d.name, d.payload, { durableEnqueued: this.durableEnqueued });
  }
}

// One event of the union at a time: TypeScript cannot correlate `event` and `payload` of a union member.
const toAgents = <E extends ServerEventName>(to: RealtimeEmitter, r: { entityId: number; event: E; payload: ServerEventPayload<E>; target: RealtimeTarget }) =>
  to.toEntity(r.entityId, r.event, r.payload, r.target);
const toVisitor = <E extends VisitorEventName>(
  to: RealtimeEmitter,
  r: { websiteToken: string; externalChatId: string; event: E; payload: VisitorEventPayload<E> },
) => to.toVisitor(r.websiteToken, r.externalChatId, r.event, r.payload);
const emit = (to: RealtimeEmitter, r: RealtimeEvent) => (r.to === 'agents' ? toAgents(to, r) : toVisitor(to, r));
