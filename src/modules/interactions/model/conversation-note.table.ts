import { sql } from 'drizzle-orm';
import { bigint, index, integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { idColumn, timestampColumn } from '../../../db/columns.js';
import { entityIdColumn } from '../../identity/entity.table.js';
import { employee } from '../../identity/employee.table.js';
import { conversation } from './conversation.table.js';

/**
 * A private note on a conversation (issue 50): written by an employee (`author_employee_id`) or by a workflow's
 * `add_note` step (`author_workflow_id`, `idempotency_key` = the step visit's key, so a retried step writes it
 * once). Only agents read it: it is never sent, never shown to the customer or the website chat. `mentioned_employee_ids`
 * are the `@[employee:<id>]` tokens of `body`, each checked to see the conversation when written.
 * `attachment_ids` are media objects of the media module. `occurred_at_ms` places it among the messages in the
 * history (same clock as `message.occurred_at_ms`).
 */
export const conversationNote = pgTable(
  'conversation_note',
  {
    id: idColumn(),
    entityId: entityIdColumn(),
    conversationId: integer()
      .notNull()
      .references(() => conversation.id, { onDelete: 'cascade' }),
    authorEmployeeId: integer().references(() => employee.id),
    /** The workflow whose `add_note` step wrote it (no foreign key: workflows own their table, and a deleted workflow's notes stay). */
    authorWorkflowId: integer(),
    body: text().notNull(),
    mentionedEmployeeIds: integer()
      .array()
      .notNull()
      .default(sql`'{}'::integer[]`),
    attachmentIds: integer()
      .array()
      .notNull()
      .default(sql`'{}'::integer[]`),
    idempotencyKey: text(),
    occurredAtMs: bigint({ mode: 'number' }).notNull(),
    createdAt: timestampColumn(),
    editedAt: timestamp({ withTimezone: true }),
  },
  (t) => [
    // The conversation's notes in history order (merged with `message_conversation_id_occurred_at_ms_idx`).
    index('conversation_note_conversation_id_occurred_at_ms_idx').on(t.conversationId, t.occurredAtMs, t.id),
    uniqueIndex('conversation_note_entity_id_idempotency_key_uq')
      .on(t.entityId, t.idempotencyKey)
      .where(sql`${t.idempotencyKey} is not null`),
  ],
);
