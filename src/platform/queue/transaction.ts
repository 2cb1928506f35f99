/**
 * Transactions with after-commit effects: `transaction(db, work)` runs `work` in a Drizzle transaction
 * and, only once it has committed, the effects registered on it with `afterCommit(tx, effect)` (waking
 * the local worker of a queue that received a job, delivering domain events to in-process subscribers).
 * A rolled-back transaction runs none of them.
 */
import type { Db } from '../../db/client.js';

type Effect = () => void | Promise<void>;

const effectsByTransaction = new WeakMap<Db, Effect[]>();

/**
 * Runs `work(tx)` in a transaction of `db`; after the commit, runs the effects registered on `tx` in
 * order and resolves with `work`'s result. Rejects with `work`'s error (nothing committed, no effect
 * run). Effects should not throw (the event bus and the queue's wake do not); if one does, the others
 * still run and the first error is thrown after them, although the change is already committed.
 * Nested transactions (`tx.transaction`) are not tracked: register effects on the outer `tx`.
 */
export async function transaction<T>(db: Db, work: (tx: Db) => Promise<T>): Promise<T> {
  let effects: Effect[] = [];
  const result = await db.transaction(async (tx) => {
    const handle = tx as unknown as Db;
    effects = [];
    effectsByTransaction.set(handle, effects);
    return work(handle);
  });
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

/** Whether `tx` was opened by `transaction()`, so `afterCommit` may be used on it. */
export function hasAfterCommit(tx: Db): boolean {
  return effectsByTransaction.has(tx);
}

/**
 * Registers `effect` to run after `tx` commits. Throws when `tx` was not opened by `transaction()`:
 * nothing would ever run the effect.
 */
export function afterCommit(tx: Db, effect: Effect): void {
  const effects = effectsByTransaction.get(tx);
  if (!effects) throw new Error('afterCommit needs a transaction opened with transaction() from platform/queue');
  effects.push(effect);
}
