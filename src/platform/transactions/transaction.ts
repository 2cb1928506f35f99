/**
 * Transactions and what happens once they commit — the one way a change publishes (docs/architecture.md
 * "Units of work and publishing"). `transaction(db, work, publishers?)` runs `work` in a Drizzle transaction and hands it the
 * change's unit of work: `tx` for the repositories, `afterCommit(effect)` for effects that must wait for the
 * commit (waking the local worker of a queue that received a job), `beforeCommit(write)` for buffered
 * writes, and, with `publishers`, `events`: the change's `ChangeEvents`, whose domain events' durable jobs
 * are written in the transaction just before it commits and whose socket and in-process domain events go
 * out after the commit. A rolled-back transaction runs and publishes nothing. Services that publish or log
 * take the unit, so a signature says whether a function may publish.
 */
import type { Db } from '../../db/client.js';
import { ChangeEvents, type Publishers } from './change-events.js';
import type { Effect, UnitOfWork } from './unit-of-work.js';

export type { UnitOfWork } from './unit-of-work.js';

/** A unit of work that publishes: `events` collects its socket and domain events, sent once it commits. */
export interface PublishingUnitOfWork extends UnitOfWork {
  readonly events: ChangeEvents;
}

/**
 * Runs `work` in a transaction of `db`; after the commit, runs the effects registered with `afterCommit`
 * in order, then publishes what `events` collected (with `publishers`), and resolves with `work`'s
 * result. Rejects with `work`'s error (nothing committed, nothing published). Effects should not throw (the
 * event bus and the queue's wake do not); if one does, the others still run and the first error is thrown
 * after them, although the change is already committed. A nested step that must be all-or-nothing uses
 * `savepoint(unit.tx, ...)` and keeps registering on the outer unit.
 */
export function transaction<T>(db: Db, work: (unit: UnitOfWork) => Promise<T>): Promise<T>;
export function transaction<T>(db: Db, work: (unit: PublishingUnitOfWork) => Promise<T>, publishers: Publishers): Promise<T>;
export async function transaction<T>(db: Db, work: (unit: PublishingUnitOfWork) => Promise<T>, publishers?: Publishers): Promise<T> {
  let effects: Effect[] = [];
  let events: ChangeEvents | undefined;
  const result = await db.transaction(async (handle) => {
    const tx = handle as unknown as Db;
    const finishers: Effect[] = [];
    effects = [];
    events = publishers ? new ChangeEvents() : undefined;
    // Without publishers the overload types the unit without `events`.
    const unit = {
      tx,
      events: events as ChangeEvents,
      afterCommit: (effect) => void effects.push(effect),
      beforeCommit: (write) => void finishers.push(write),
    } satisfies PublishingUnitOfWork;
    const value = await work(unit);
    for (let i = 0; i < finishers.length; i++) await finishers[i]!();
    // Durable consumers (workflows) get the events in this transaction: committed changes never lose them.
    if (publishers && events) await events.enqueueDurable(unit, publishers.events);
    return value;
  });
  const after = publishers && events ? [...effects, () => events!.publish(publishers)] : effects;
  let firstError: Error | undefined;
  for (const effect of after) {
    try {
      await effect();
    } catch (err) {
      firstError ??= err instanceof Error ? err : new Error(String(err));
    }
  }
  if (firstError !== undefined) throw firstError;
  return result;
}

/**
 * Runs `work` in a transaction of its own when `db` is the database, or in a savepoint of the caller's
 * transaction when `db` is one (a repository step that must be all-or-nothing inside a larger change, or a
 * try whose failure the caller survives: a unique violation caught and retried). It tracks nothing: effects
 * and events belong to the outer transaction opened with `transaction()`. Rejects with `work`'s error, the
 * savepoint rolled back.
 */
export async function savepoint<T>(db: Db, work: (tx: Db) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => work(tx as unknown as Db));
}
