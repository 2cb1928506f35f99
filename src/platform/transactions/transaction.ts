/**
 * Transactions and what happens once they commit — the one way a change publishes (docs/architecture.md
 * "Publishing"). `transaction(db, work, publishers?)` runs `work` in a Drizzle transaction; effects
 * registered with `onCommit(tx, effect)` (waking the local worker of a queue that received a job) run only
 * after the commit, in order. With `publishers`, the transaction also has a `ChangeEvents` collector
 * (`changeEventsOf(tx)`): its domain events' durable jobs are written in the transaction just before it
 * commits, and its realtime and in-process domain events go out after the commit. A rolled-back
 * transaction runs and publishes nothing.
 */
import type { Db } from '../../db/client.js';
import { ChangeEvents, type Publishers } from './change-events.js';

type Effect = () => void | Promise<void>;

interface TransactionState {
  effects: Effect[];
  /** Writes that run inside the transaction once `work` is done (a buffer flushed in one statement). */
  finishers: Effect[];
  events: ChangeEvents | undefined;
}

const stateByTransaction = new WeakMap<Db, TransactionState>();

/**
 * Runs `work(tx)` in a transaction of `db`; after the commit, runs the effects registered on `tx` in
 * order, then publishes what `changeEventsOf(tx)` collected (with `publishers`), and resolves with `work`'s
 * result. Rejects with `work`'s error (nothing committed, nothing published). Effects should not throw (the
 * event bus and the queue's wake do not); if one does, the others still run and the first error is thrown
 * after them, although the change is already committed. Nested transactions (`tx.transaction`) are not
 * tracked: register effects on the outer `tx`.
 */
export async function transaction<T>(db: Db, work: (tx: Db) => Promise<T>, publishers?: Publishers): Promise<T> {
  let state: TransactionState = { effects: [], finishers: [], events: undefined };
  const result = await db.transaction(async (tx) => {
    const handle = tx as unknown as Db;
    state = { effects: [], finishers: [], events: publishers ? new ChangeEvents() : undefined };
    stateByTransaction.set(handle, state);
    const value = await work(handle);
    // A finisher may register another (it runs too); each runs once, in order.
    for (let i = 0; i < state.finishers.length; i++) await state.finishers[i]!();
    // Durable consumers (workflows) get the events in this transaction: committed changes never lose them.
    if (publishers && state.events) await state.events.enqueueDurable(handle, publishers.events);
    return value;
  });
  const effects = publishers && state.events ? [...state.effects, () => state.events!.publish(publishers)] : state.effects;
  let firstError: Error | undefined;
  for (const effect of effects) {
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

/** Whether `tx` was opened by `transaction()`, so `onCommit` may be used on it. */
export function hasOnCommit(tx: Db): boolean {
  return stateByTransaction.has(tx);
}

/**
 * Registers `effect` to run after `tx` commits. Throws when `tx` was not opened by `transaction()`:
 * nothing would ever run the effect.
 */
export function onCommit(tx: Db, effect: Effect): void {
  const state = stateByTransaction.get(tx);
  if (!state) throw new Error('onCommit needs a transaction opened with transaction() from platform/transactions');
  state.effects.push(effect);
}

/**
 * Registers `write` to run inside `tx` after its work and just before it commits (before the durable
 * consumers' jobs): a change that buffers rows (the conversation event log) writes them in one statement.
 * Throws when `tx` was not opened by `transaction()`. A failing `write` rolls the whole change back.
 */
export function beforeCommit(tx: Db, write: Effect): void {
  const state = stateByTransaction.get(tx);
  if (!state) throw new Error('beforeCommit needs a transaction opened with transaction() from platform/transactions');
  state.finishers.push(write);
}

/**
 * The collector of what the change in `tx` publishes: realtime events for the entity's sockets and domain
 * events, in order. Throws when `tx` was not opened by `transaction(db, work, publishers)`: nothing would
 * publish them.
 */
export function changeEventsOf(tx: Db): ChangeEvents {
  const events = stateByTransaction.get(tx)?.events;
  if (!events) throw new Error('changeEventsOf needs a transaction opened with transaction(db, work, publishers) from platform/transactions');
  return events;
}
