import { idColumn, timestampColumn, tsvector } from '../../../db/columns.js';
import { entityIdColumn } from '../../identity/entity.table.js';
import { sql } from 'drizzle-orm';
import { bigint, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { employee } from '../../identity/employee.table.js';
import { conversation } from './conversation.table.js';
import { MESSAGE_DIRECTIONS, MESSAGE_STATUSES } from './interactions.enums.js';

/**
 * One message of a conversation. `external_message_id` is the platform id (wamid, mid), unique per
 * entity. `status` only moves forward (sent → delivered → read; failed is terminal), each step keeping
 * its platform time, so a late `delivered` never overwrites `read`. `status_rank` orders the steps.
 *
 * An outbound message sent through this service is stored `pending` first, with `external_message_id`
 * = `crm:<client_message_id>` until the platform accepts it and gives its id. `client_message_id` is the
 * idempotency key of every attempt to send it (docs/communications-contract.md), so a repeated attempt
 * never delivers twice. `origin` names the workflow execution that sent it (loop protection).
 */
export const message = pgTable(
  'message',
  {
    id: idColumn(),
    entityId: entityIdColumn(),
    conversationId: integer()
      .notNull()
      .references(() => conversation.id, { onDelete: 'cascade' }),
    direction: text({ enum: MESSAGE_DIRECTIONS }).notNull(),
    type: text().notNull(),
    text: text(),
    /** The type-specific part of the canonical message (media, location, contacts, reply ids...). */
    content: jsonb().notNull(),
    externalMessageId: text().notNull(),
    replyToExternalId: text(),
    mediaId: text(),
    status: text({ enum: MESSAGE_STATUSES }),
    statusRank: integer().notNull().default(0),
    sentAt: timestamp({ withTimezone: true }),
    deliveredAt: timestamp({ withTimezone: true }),
    readAt: timestamp({ withTimezone: true }),
    failedAt: timestamp({ withTimezone: true }),
    errors: jsonb(),
    clientMessageId: text(),
    sentByEmployeeId: integer().references(() => employee.id),
    sendAttempts: integer().notNull().default(0),
    retriedAt: timestamp({ withTimezone: true }),
    origin: jsonb(),
    occurredAt: timestamp({ withTimezone: true }).notNull(),
    /** Sort key for history: platform time in ms, then id. */
    occurredAtMs: bigint({ mode: 'number' }).notNull(),
    createdAt: timestampColumn(),
    /**
     * The text as full-text search reads it (issue 51, docs/decisions.md "Search"): accents folded, Spanish
     * stems (`crm_spanish`, migration 0032). Generated, so every write path keeps it true.
     */
    searchVector: tsvector().generatedAlwaysAs(sql`to_tsvector('crm_spanish'::regconfig, coalesce("text", ''))`),
  },
  (t) => [
    uniqueIndex('message_entity_id_external_message_id_uq').on(t.entityId, t.externalMessageId),
    index('message_conversation_id_occurred_at_ms_idx').on(t.conversationId, t.occurredAtMs, t.id),
    // The media proxy finds a platform media id among the entity's messages.
    index('message_entity_id_media_id_idx')
      .on(t.entityId, t.mediaId)
      .where(sql`${t.mediaId} is not null`),
    // A send with an idempotency key (a workflow step) finds the message it already created.
    uniqueIndex('message_entity_id_client_message_id_uq')
      .on(t.entityId, t.clientMessageId)
      .where(sql`${t.clientMessageId} is not null`),
    // Search (src/modules/search): words, prefixes and phrases of every message, without a date cap.
    index('message_search_vector_idx').using('gin', t.searchVector),
  ],
);
