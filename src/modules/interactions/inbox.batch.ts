/**
 * Applies a batch of inbox rows in ONE transaction: one claim statement, the batch's messages in a few
 * statements for all of them (projection.service.ts `applyMessageBatch`), the other events one by one,
 * one outcome statement, one commit; effects are published after the commit, in order. The worker only
 * batches rows of distinct chats, so batching changes no conversation's order. When anything in the
 * batch fails the transaction rolls back whole (nothing is half applied) and each row is tried again
 * alone, so only the faulty event records a failure.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/client.js';
import type { EventBus } from '../../platform/events/bus.js';
import type { Realtime } from '../../platform/realtime/gateway.js';
import * as inboxRepo from './inbox.repository.js';
import { applyEvent, applyMessageBatch, type Effects } from './projection.service.js';
import { publishEffects } from './effects.js';

export interface BatchDeps {
  db: Db;
  events: EventBus;
  realtime: Realtime;
  log: FastifyBaseLogger;
}

export interface RetryPolicy {
  maxAttempts: number;
  retryBaseDelayMs: number;
}

/** Claims and applies `ids` (rows already processed or held elsewhere are skipped); never throws. */
export async function processBatch(deps: BatchDeps, ids: number[], policy: RetryPolicy): Promise<void> {
  let effects: Effects[];
  try {
    effects = await applyBatch(deps.db, ids);
  } catch (err) {
    if (ids.length > 1) {
      for (const id of ids) await processBatch(deps, [id], policy);
      return;
    }
    await recordFailure(deps, ids[0]!, err, policy);
    return;
  }
  for (const e of effects) {
    try {
      await publishEffects(deps, e);
    } catch (err) {
      deps.log.error({ err }, 'publishing inbound event effects failed');
    }
  }
}

async function applyBatch(db: Db, ids: number[]): Promise<Effects[]> {
  return db.transaction(async (tx) => {
    await inboxRepo.commitWithoutWaitingForFlush(tx);
    const rows = await inboxRepo.claimBatch(tx, ids);
    const byId = new Map(rows.map((r) => [r.id, r.event]));
    const claimed = ids.filter((id) => byId.has(id)).map((id) => ({ id, event: byId.get(id)! }));
    // Messages in statements for the whole batch; everything else one event at a time.
    const fast = await applyMessageBatch(tx, claimed.map((c) => c.event));
    const outcomes: { id: number; state: 'processed' | 'unroutable'; entityId: number | null }[] = [];
    const effects: Effects[] = [];
    for (const [i, { id, event }] of claimed.entries()) {
      const result = fast[i] ?? (await applyEvent(tx, event));
      if (result.outcome === 'unroutable') {
        outcomes.push({ id, state: 'unroutable', entityId: null });
        continue;
      }
      outcomes.push({ id, state: 'processed', entityId: result.entityId });
      effects.push(result.effects);
    }
    await inboxRepo.setOutcomes(tx, outcomes);
    return effects;
  });
}

async function recordFailure(deps: BatchDeps, id: number, err: unknown, policy: RetryPolicy): Promise<void> {
  deps.log.warn({ err, inboxId: id }, 'inbound event processing failed');
  try {
    await inboxRepo.recordFailure(deps.db, id, err instanceof Error ? err.message : String(err), policy.maxAttempts, policy.retryBaseDelayMs);
  } catch (recordErr) {
    deps.log.error({ err: recordErr, inboxId: id }, 'could not record the failure; the sweeper will retry');
  }
}
