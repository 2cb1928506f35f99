/** Drizzle queries of the webhook intake: insert-or-ignore, claim, outcome, retries and operator lists. */
import { and, count, desc, eq, inArray, lt, lte, or, sql } from 'drizzle-orm';
import type { Database, Db } from '../../../db/client.js';
import { runStatement, runStatementIn } from '../../../db/statement.js';
import { CLAIM_BATCH, INSERT_NEW, RECORD_FAILURE, SET_OUTCOMES } from './intake.sql.js';
import { interactionWebhookInbox as intake } from '../model/index.js';
import { chatKeyOf, type CanonicalEvent } from '../model/index.js';
import type { ChannelAccountRef } from '../channel-accounts/index.js';
import type { ChannelTypeCode, IntakeState } from '../model/index.js';

export type IntakeRow = typeof intake.$inferSelect;

export interface NewIntakeEvent {
  eventKey: string;
  chatKey: string;
  event: CanonicalEvent;
}

/**
 * Inserts the events that are new (unique event key) in one statement and returns them. Their first
 * attempt is the inline worker's; the sweeper only takes them after `graceSeconds`. The webhook's only
 * statement, so it is a named prepared statement (parsed and planned once per connection).
 */
export async function insertNew(
  database: Pick<Database, 'preparedQuery'>,
  events: NewIntakeEvent[],
  graceSeconds: number,
): Promise<{ id: number; eventKey: string }[]> {
  if (events.length === 0) return [];
  const nextAttemptAt = new Date(Date.now() + graceSeconds * 1000);
  const rows = await runStatement<{ id: string | number; event_key: string }>(database, INSERT_NEW, [
    events.map((e) => e.eventKey),
    events.map((e) => e.event.platform),
    events.map((e) => e.event.kind),
    events.map((e) => e.event.account_id),
    events.map((e) => (e.event.kind === 'account_error' ? null : e.event.external_chat_id)),
    events.map((e) => new Date(e.event.occurred_at).toISOString()),
    events.map((e) => JSON.stringify(e.event)),
    nextAttemptAt.toISOString(),
  ]);
  return rows.map((r) => ({ id: Number(r.id), eventKey: r.event_key }));
}

/** An intake row claimed for processing, with its receiving account and conversation as they stood at the claim. */
export interface ClaimedEvent {
  id: number;
  event: CanonicalEvent;
  /** The active account of the event's platform and account id; null when no entity has it (yet). */
  account: ChannelAccountRef | null;
  /** The chat's conversation on that account; null when there is none yet (or no account). */
  conversationId: number | null;
}

/**
 * Claims the pending rows among `ids` for the caller's transaction (row locks, SKIP LOCKED: rows that are done
 * or held by another worker are left out) and resolves their receiving accounts and existing conversations,
 * all in one statement; `setOutcomes` ends their attempt in the same transaction, so a rollback leaves them
 * pending. The same statement lets the transaction commit without waiting for its WAL flush
 * (`synchronous_commit` off, for this transaction only): safe, because the worker's transaction ends the intake
 * rows' attempts together with the conversation changes they cause, so if PostgreSQL crashed before flushing
 * it, both are lost together and the durable intake rows (committed synchronously by the webhook) are simply
 * applied again (docs/decisions.md). Runs once per worker batch, so it is a prepared statement.
 */
export async function claimBatch(db: Db, ids: number[]): Promise<ClaimedEvent[]> {
  if (ids.length === 0) return [];
  const rows = await runStatementIn<{
    id: string | number;
    event: CanonicalEvent;
    account_id: number | null;
    entity_id: number | null;
    channel_type_code: ChannelTypeCode | null;
    conversation_id: number | null;
  }>(db, CLAIM_BATCH, [ids]);
  return rows.map((r) => ({
    id: Number(r.id),
    event: r.event,
    account: r.account_id === null ? null : { id: r.account_id, entityId: r.entity_id!, channelTypeCode: r.channel_type_code! },
    conversationId: r.conversation_id,
  }));
}

/** Ends the attempt of rows claimed by `claimBatch`: their outcome and resolved entity, in one statement. */
export async function setOutcomes(
  db: Db,
  outcomes: { id: number; state: Extract<IntakeState, 'processed' | 'unroutable'>; entityId: number | null }[],
): Promise<void> {
  if (outcomes.length === 0) return;
  await runStatementIn(db, SET_OUTCOMES, [outcomes.map((o) => o.id), outcomes.map((o) => o.state), outcomes.map((o) => o.entityId)]);
}

/** Records a failed attempt; a permanent failure, or the `maxAttempts`-th, moves the row to the dead-letter list with its error. */
export async function recordFailure(db: Db, id: number, error: string, maxAttempts: number, baseDelayMs: number, permanent = false): Promise<void> {
  await runStatementIn(db, RECORD_FAILURE, [error.slice(0, 2000), permanent, maxAttempts, baseDelayMs, id]);
}

/** Rows on the dead-letter list (state `dead`). */
export async function countDead(db: Db): Promise<number> {
  const [row] = await db.select({ n: count() }).from(intake).where(eq(intake.state, 'dead'));
  return row?.n ?? 0;
}

/** Events accepted and not yet projected, and the age in seconds of the oldest of them (0 when none): the webhook lag. */
export async function pendingLag(db: Db): Promise<{ pending: number; oldestAgeSeconds: number }> {
  const [row] = await db
    .select({ pending: count(), oldestAgeSeconds: sql<number>`coalesce(extract(epoch from now() - min(${intake.receivedAt})), 0)::float8` })
    .from(intake)
    .where(eq(intake.state, 'pending'));
  return { pending: row?.pending ?? 0, oldestAgeSeconds: Math.max(0, Number(row?.oldestAgeSeconds ?? 0)) };
}

/** Pending rows due for an attempt (retries, and work a stopped process left behind), oldest first. */
export async function dueRows(db: Db, limit: number, includeUntried = false): Promise<{ id: number; chatKey: string }[]> {
  const rows = await db
    .select({ id: intake.id, platform: intake.platform, accountExternalId: intake.accountExternalId, externalChatId: intake.externalChatId })
    .from(intake)
    .where(
      and(
        eq(intake.state, 'pending'),
        includeUntried ? or(lte(intake.nextAttemptAt, new Date()), eq(intake.attempts, 0)) : lte(intake.nextAttemptAt, new Date()),
      ),
    )
    .orderBy(intake.occurredAt, intake.id)
    .limit(limit);
  return rows.map((r) => ({ id: r.id, chatKey: chatKeyOf(r.platform, r.accountExternalId, r.externalChatId) }));
}

export async function listByState(
  db: Db,
  state: Extract<IntakeState, 'dead' | 'unroutable'>,
  limit: number,
  beforeId: number | undefined,
): Promise<IntakeRow[]> {
  return db
    .select()
    .from(intake)
    .where(and(eq(intake.state, state), beforeId !== undefined ? lt(intake.id, beforeId) : undefined))
    .orderBy(desc(intake.id))
    .limit(limit);
}

/** Puts dead or unroutable rows back to pending for an immediate attempt. */
export async function requeue(db: Db, ids: number[]): Promise<number> {
  if (ids.length === 0) return 0;
  const rows = await db
    .update(intake)
    .set({ state: 'pending', attempts: 0, nextAttemptAt: new Date() })
    .where(and(inArray(intake.id, ids), inArray(intake.state, ['dead', 'unroutable'])))
    .returning({ id: intake.id });
  return rows.length;
}

/** Forgets processed events older than `days` (event ids are remembered at least that long). */
export async function purgeProcessed(db: Db, days: number): Promise<void> {
  await db.delete(intake).where(and(eq(intake.state, 'processed'), lt(intake.receivedAt, new Date(Date.now() - days * 86_400_000))));
}
