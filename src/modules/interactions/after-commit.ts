/**
 * What a change publishes once its transaction has committed: realtime events to the entity's sockets and
 * domain events on the bus, collected in order while the transaction runs and published by `publish`
 * (never before the commit, so nobody hears of a change that was rolled back). Both lists stay typed:
 * a realtime event is one of `ServerToClientEvents` with its payload, a domain event one of `DomainEventMap`.
 */
import type { Db } from '../../db/client.js';
import type { DomainEventMap, EventBus } from '../../platform/events/bus.js';
import type { RealtimeEmitter, RealtimeTarget, ServerEventName, ServerEventPayload } from '../../platform/realtime/events.js';

type RealtimeEvent = { [E in ServerEventName]: { entityId: number; event: E; payload: ServerEventPayload<E>; target: RealtimeTarget } }[ServerEventName];
type DomainEvent = { [K in keyof DomainEventMap]: { name: K; payload: DomainEventMap[K] } }[keyof DomainEventMap];

export class AfterCommit implements RealtimeEmitter {
  private readonly realtime: RealtimeEvent[] = [];
  private readonly domain: DomainEvent[] = [];
  private durableEnqueued = false;

  toEntity<E extends ServerEventName>(entityId: number, event: E, payload: ServerEventPayload<E>, target: RealtimeTarget = {}): void {
    this.realtime.push({ entityId, event, payload, target } as RealtimeEvent);
  }

  /** Queues domain event `name` for the bus. */
  domainEvent<K extends keyof DomainEventMap>(name: K, payload: DomainEventMap[K]): void {
    this.domain.push({ name, payload } as DomainEvent);
  }

  /**
   * Inside the transaction, before it commits: enqueues the collected domain events for their durable
   * consumers (workflows) on `tx`, so that an event is delivered to them if and only if the change commits.
   */
  async enqueueDurable(tx: Db, events: EventBus): Promise<void> {
    for (const d of this.domain) await events.enqueueDurable(tx, d.name, d.payload);
    this.durableEnqueued = true;
  }

  /** `enqueueDurable` for the events of many changes in one transaction (an inbox batch): consumers are asked once per event name. */
  static async enqueueDurableAll(tx: Db, events: EventBus, outs: AfterCommit[]): Promise<void> {
    await events.enqueueDurableMany(tx, outs.flatMap((o) => o.domain));
    for (const o of outs) o.durableEnqueued = true;
  }

  /** Emits the realtime events, then publishes the domain events in process, each in the order they were collected. */
  async publish(deps: { realtime: RealtimeEmitter; events: EventBus }): Promise<void> {
    for (const r of this.realtime) emit(deps.realtime, r);
    for (const d of this.domain) await deps.events.publish(d.name, d.payload, { durableEnqueued: this.durableEnqueued });
  }
}

// One event of the union at a time: TypeScript cannot correlate `event` and `payload` of a union member.
const emit = <E extends ServerEventName>(to: RealtimeEmitter, r: { entityId: number; event: E; payload: ServerEventPayload<E>; target: RealtimeTarget }) =>
  to.toEntity(r.entityId, r.event, r.payload, r.target);
