/**
 * The internal typed domain event bus (DESIGN "Queue, events, schedules"). Services publish after their
 * transaction commits; subscribers run asynchronously and a failing subscriber is logged, never
 * propagated to the publisher. Consumers that must not miss an event enqueue a durable job for it.
 *
 * Modules add their events by augmenting `DomainEventMap`:
 * `declare module '../../platform/events/bus.js' { interface DomainEventMap { 'lead.created': LeadCreated } }`
 */
import type { FastifyBaseLogger } from 'fastify';

// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface DomainEventMap {}

export type DomainEventName = keyof DomainEventMap;
export type DomainEventHandler<K extends DomainEventName> = (payload: DomainEventMap[K]) => void | Promise<void>;

export interface EventBus {
  /** Delivers `payload` to every subscriber of `name`; resolves when all handlers settled. */
  publish<K extends DomainEventName>(name: K, payload: DomainEventMap[K]): Promise<void>;
  /** Adds a handler; returns a function that removes it. */
  subscribe<K extends DomainEventName>(name: K, handler: DomainEventHandler<K>): () => void;
}

export function createEventBus(log: Pick<FastifyBaseLogger, 'error'>): EventBus {
  const handlers = new Map<string, Set<(payload: unknown) => void | Promise<void>>>();
  return {
    async publish(name, payload) {
      const set = handlers.get(name);
      if (!set || set.size === 0) return;
      await Promise.all(
        [...set].map(async (handler) => {
          try {
            await handler(payload);
          } catch (err) {
            log.error({ err, event: name }, 'domain event handler failed');
          }
        }),
      );
    },
    subscribe(name, handler) {
      let set = handlers.get(name);
      if (!set) handlers.set(name, (set = new Set()));
      const h = handler as (payload: unknown) => void | Promise<void>;
      set.add(h);
      return () => set.delete(h);
    },
  };
}
