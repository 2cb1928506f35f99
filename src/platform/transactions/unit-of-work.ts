/**
 * One change in progress (docs/architecture.md "Units of work and publishing"): its transaction and what runs
 * around its commit. `transaction()` of transaction.ts opens one. The type lives in a file of its own so that
 * the collector of a change's events (change-events.ts) can name it without importing transaction.ts, which
 * imports the collector.
 */
import type { Db } from '../../db/client.js';

export type Effect = () => void | Promise<void>;

/** One change in progress: its transaction and what runs around its commit. */
export interface UnitOfWork {
  /** The transaction: every statement of the change runs on it. */
  readonly tx: Db;
  /** Runs `effect` after the commit, in the order registered; never when the change rolls back. */
  readonly afterCommit: (effect: Effect) => void;
  /**
   * Runs `write` inside the transaction once the work is done and just before the commit (before the
   * durable consumers' jobs): a change that buffers rows writes them in one statement. A failing `write`
   * rolls the whole change back. A write may register another; each runs once, in order.
   */
  readonly beforeCommit: (write: Effect) => void;
}
