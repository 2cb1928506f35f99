/**
 * Applies a batch of inbox rows in ONE transaction: one statement claims the rows and resolves their
 * receiving accounts and conversations, the batch's messages take one statement for all of them (plus
 * the opening of new chats' conversations), statuses apply one by one (inbound.service.ts), one outcome
 * statement, the jobs of durable event consumers, one commit; what the events publish goes out after the commit, in order. The worker only
 * batches rows of distinct chats, so batching changes no conversation's order. When anything in the
 * batch fails the transaction rolls back whole (nothing is half applied) and each row is tried again
 * alone, so only the faulty event records a failure.
 */
import { isPermanentFailure } from '../../../platform/queue/queue.js';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../../db/client.js';
import type { EventBus } from '../../../platform/events/bus.js';
import type { RealtimeEmitter } from '../../../platform/realtime/events.js';
import * as intakeRepo from './intake.repository.js';
import { applyInboundEvents } from './inbound.service.js';
import type { SlaClocks } from '../service-levels/index.js';
import { changeConversations } from '../activity/index.js';

export interface BatchDeps {
  db: Db;
  events: EventBus;
  realtime: RealtimeEmitter;
  log: FastifyBaseLogger;
  sla: SlaClocks;
}

export interface RetryPolicy {
  maxAttempts: number;
  retryBaseDelayMs: number;
}

/** Claims and applies `ids` (rows already processed or held elsewhere are skipped); never throws. */
export async function processBatch(deps: BatchDeps, ids: number[], policy: RetryPolicy): Promise<void> {
  let committed = false;
  try {
    await applyBatch(deps, ids, () => (committed = true));
  } catch (err) {
    if (committed) {
      // Only publishing failed: the batch is applied, so it is not tried again.
      deps.log.error({ err }, 'publishing what an inbound event changed failed');
      return;
    }
    if (ids.length > 1) {
      for (const id of ids) await processBatch(deps, [id], policy);
      return;
    }
    await recordFailure(deps, ids[0]!, err, policy);
  }
}

/** One change; its events go out after the commit, which `onCommitted` is told of first. */
async function applyBatch(deps: BatchDeps, ids: number[], onCommitted: () => void): Promise<void> {
  await changeConversations(
    deps.db,
    async (change) => {
      const { tx } = change;
      change.afterCommit(onCommitted);
      const rows = await intakeRepo.claimBatch(tx, ids);
      const byId = new Map(rows.map((r) => [r.id, r]));
      // Claimed rows in the worker's order (the claim statement returns them in any order).
      const claimed = ids.flatMap((id) => byId.get(id) ?? []);
      const outcomes = await applyInboundEvents(change, claimed, deps.sla);
      await intakeRepo.setOutcomes(tx, outcomes);
    },
    deps,
  );
}

async function recordFailure(deps: BatchDeps, id: number, err: unknown, policy: RetryPolicy): Promise<void> {
  const reason = err instanceof Error ? err.message : String(err);
  const permanent = isPermanentFailure(err);
  // A failure retrying cannot cure is the event's, not the code's: one line with its reason, no stack.
  if (permanent) deps.log.warn({ inboxId: id, reason }, 'inbound event can never be applied: dead-lettered');
  else deps.log.warn({ err, inboxId: id }, 'inbound event processing failed');
  try {
    // Shared vocabulary (docs/operations.md "Background jobs"): a permanent failure is dead-lettered at once.
    await intakeRepo.recordFailure(deps.db, id, reason, policy.maxAttempts, policy.retryBaseDelayMs, permanent);
  } catch (recordErr) {
    deps.log.error({ err: recordErr, inboxId: id }, 'could not record the failure; the sweeper will retry');
  }
}
