/**
 * The internal typed domain event bus (DESIGN "Queue, events, schedules"), in two forms:
 *
 * - In process: `subscribe` handlers run after the publisher's transaction commits, asynchronously
 *   with respect to each other; a failing handler is logged, never propagated to the publisher. An
 *   event published while the process stops, or whose handler fails, is not delivered again.
 * - Durable, for consumers that must not miss an event (workflows): `subscribeDurably(name, consumer,
 *   handler)` gives the consumer its own job queue `<event>:<consumer>`, and the publisher's transaction
 *   writes one job per durable consumer, so the event is delivered at least once if and only if the
 *   change commits, even if the process dies right after the commit. Durable handlers must be
 *   idempotent; the queue's retry and dead-letter rules apply (a `PermanentJobError` dead-letters at once).
 *
 * Nobody publishes on the bus directly: a change collects its events in its unit of work's `events` (or a
 * `ChangeEvents`) from platform/transactions, which calls `enqueueDurable` before the commit and
 * `deliver` after it. Events are declared by augmenting `DomainEventMap` (platform/events/domain-events.ts).
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/client.js';
import type { JobContext, Queue, RetryPolicy, WorkOptions } from '../queue/queue.js';
import type { DomainEventSink } from '../transactions/change-events.js';
import type { UnitOfWork } from '../transactions/transaction.js';
import type { DomainEventMap, DomainEventName } from './domain-events.js';

export type { DomainEventMap } from './domain-events.js';

type DomainEventHandler<K extends DomainEventName> = (payload: DomainEventMap[K]) => void | Promise<void>;
/** A durable consumer's handler; `job.attempt` is 1 on the first delivery. */
type DurableEventHandler<K extends DomainEventName> = (payload: DomainEventMap[K], job: JobContext) => Promise<void>;

export interface EventBus extends DomainEventSink {
  /**
   * Delivers `payload` to every in-process subscriber of `name`; resolves when all handlers settled.
   * Called by a change's `ChangeEvents` after its commit; `durableEnqueued` says the durable consumers'
   * jobs were written in that transaction (an event with durable consumers delivered without them is
   * logged as an error: those consumers never receive it).
   */
  deliver<K extends DomainEventName>(name: K, payload: DomainEventMap[K], options: { durableEnqueued: boolean }): Promise<void>;
  /** Adds an in-process handler; returns a function that removes it. */
  subscribe<K extends DomainEventName>(name: K, handler: DomainEventHandler<K>): () => void;
  /**
   * Registers `consumer` (a stable name such as `workflows`) as a durable consumer of `name` and its
   * handler: defines the queue `<name>:<consumer>` with `policy` and works it once the queue starts.
   * Call it at registration, in every process, before anything publishes `name`.
   */
  subscribeDurably<K extends DomainEventName>(
    name: K,
    consumer: string,
    handler: DurableEventHandler<K>,
    options?: {
      policy?: RetryPolicy;
      work?: WorkOptions;
      /**
       * Which of `payloads` the consumer wants, read on the publisher's transaction `tx` (e.g. "does the
       * entity have a workflow for this event?"): only those get a job. Absent: every payload.
       */
      interest?: (tx: Db, payloads: DomainEventMap[K][]) => Promise<boolean[]>;
    },
  ): Promise<void>;
  /** One job per interested durable consumer of each of `events`, in `unit`'s transaction: each consumer's interest is asked once per event name. */
  enqueueDurable(unit: UnitOfWork, events: { name: DomainEventName; payload: unknown }[]): Promise<void>;
}

/** The job queue of a durable consumer of `event`. */
function durableQueueName(event: string, consumer: string): string {
  return `${event}:${consumer}`;
}

export function createEventBus(log: Pick<FastifyBaseLogger, 'error'>, queue: Queue): EventBus {
  const handlers = new Map<string, Set<(payload: unknown) => void | Promise<void>>>();
  const durableQueues = new Map<string, string[]>();
  const interests = new Map<string, (tx: Db, payloads: unknown[]) => Promise<boolean[]>>();

  /** One job per durable consumer of `name` that wants the payload, in `unit`'s transaction. */
  async function enqueueFor(unit: UnitOfWork, name: string, payloads: unknown[]): Promise<void> {
    for (const queueName of durableQueues.get(name) ?? []) {
      const interest = interests.get(queueName);
      const wanted = interest ? await interest(unit.tx, payloads) : payloads.map(() => true);
      for (const [i, payload] of payloads.entries()) if (wanted[i]) await jobs.enqueue(unit, queueName, payload as object);
    }
  }
  // Durable consumers have queues named at run time, outside JobMap.
  const jobs = queue as unknown as Queue<Record<string, object>>;

  async function deliver(name: string, payload: unknown): Promise<void> {
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
  }

  return {
    async deliver(name, payload, options) {
      const durable = durableQueues.get(name);
      if (durable && !options.durableEnqueued)
        log.error({ event: name, consumers: durable }, 'event with durable consumers published outside its transaction: they do not receive it');
      await deliver(name, payload);
    },
    subscribe(name, handler) {
      let set = handlers.get(name);
      if (!set) handlers.set(name, (set = new Set()));
      const h = handler as (payload: unknown) => void | Promise<void>;
      set.add(h);
      return () => set.delete(h);
    },
    async subscribeDurably(name, consumer, handler, options = {}) {
      const queueName = durableQueueName(name, consumer);
      await jobs.define(queueName, options.policy);
      await jobs.work(queueName, (data, job) => handler(data as DomainEventMap[typeof name], job), options.work);
      durableQueues.set(name, [...(durableQueues.get(name) ?? []), queueName]);
      if (options.interest) interests.set(queueName, options.interest as (tx: Db, payloads: unknown[]) => Promise<boolean[]>);
    },
    async enqueueDurable(unit, events) {
      const byName = new Map<string, unknown[]>();
      for (const e of events) if (durableQueues.has(e.name)) byName.set(e.name, [...(byName.get(e.name) ?? []), e.payload]);
      for (const [name, payloads] of byName) await enqueueFor(unit, name, payloads);
    },
  };
}
