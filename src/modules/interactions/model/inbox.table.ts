import { bigint, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { INTAKE_STATES } from './interactions.enums.js';

/**
 * The durable inbox of the communications webhook (SPEC "Inbound webhook processing order"): one row per
 * canonical event, unique on the platform's event key, written before the webhook answers 200. The row
 * is also the work item: `state` goes pending → processed | unroutable | dead, and the conversation change
 * and `processed` are committed in one transaction, so a second delivery of the work is a no-op.
 * Not scoped by entity on purpose: the entity is only known once the receiving account is resolved.
 */
export const interactionWebhookInbox = pgTable(
  'interaction_webhook_inbox',
  {
    id: bigint({ mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    /** `<platform>:<kind>:<platform id>[:<status>]`; the deduplication key. */
    eventKey: text().notNull(),
    platform: text().notNull(),
    kind: text().notNull(),
    accountExternalId: text().notNull(),
    externalChatId: text(),
    /** Resolved when processed (null while pending or when unroutable). */
    entityId: integer(),
    occurredAt: timestamp({ withTimezone: true }).notNull(),
    /** The canonical event (see canonical.ts). */
    event: jsonb().notNull(),
    state: text({ enum: INTAKE_STATES }).notNull().default('pending'),
    attempts: integer().notNull().default(0),
    lastError: text(),
    nextAttemptAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    receivedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    processedAt: timestamp({ withTimezone: true }),
  },
  (t) => [
    uniqueIndex('interaction_webhook_inbox_event_key_uq').on(t.eventKey),
    index('interaction_webhook_inbox_pending_idx')
      .on(t.nextAttemptAt)
      .where(sql`${t.state} = 'pending'`),
    index('interaction_webhook_inbox_state_received_at_idx').on(t.state, t.receivedAt),
  ],
);
