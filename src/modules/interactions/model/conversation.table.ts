import { sql } from 'drizzle-orm';
import { idColumn, timestampColumns } from '../../../db/columns.js';
import { entityIdColumn } from '../../identity/entity.table.js';
import { boolean, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import type { SlaState } from './sla-state.js';
import { employee } from '../../identity/employee.table.js';
import { contact } from '../../records/contact.table.js';
import { lead } from '../../records/lead.table.js';
import { crmGroup } from '../../records/group.table.js';
import { entityChannelAccount } from './entity-channel-account.table.js';
import { routingQueue } from './routing.table.js';
import { ASSIGNMENT_STATUSES, CHANNEL_TYPE_CODES, CONVERSATION_STATUSES } from './interactions.enums.js';

/**
 * The local record of one chat: one customer (`external_chat_id`: WhatsApp wa_id, Messenger PSID,
 * Instagram IGSID) on one channel account of the entity. `assignment_status` is `unassigned`, `queued`
 * (waiting in `queue_id` for a free member) or `assigned` (to `assigned_employee_id`). `status` is the
 * lifecycle (open, pending, snoozed until `snoozed_until`, resolved); `status_changed_by` is the employee
 * who changed it last, null for the system (an inbound message, a snooze waking up, a new chat). `sla_state`
 * holds the clocks of its SLA policy (issue 31).
 */
export const conversation = pgTable(
  'conversation',
  {
    id: idColumn(),
    entityId: entityIdColumn(),
    entityChannelAccountId: integer()
      .notNull()
      .references(() => entityChannelAccount.id),
    channelTypeCode: text({ enum: CHANNEL_TYPE_CODES }).notNull(),
    externalChatId: text().notNull(),
    contactId: integer()
      .notNull()
      .references(() => contact.id),
    leadId: integer()
      .notNull()
      .references(() => lead.id),
    groupId: integer()
      .notNull()
      .references(() => crmGroup.id),
    senderName: text(),
    assignmentStatus: text({ enum: ASSIGNMENT_STATUSES }).notNull().default('unassigned'),
    assignedEmployeeId: integer().references(() => employee.id),
    assignedAt: timestamp({ withTimezone: true }),
    queueId: integer().references(() => routingQueue.id, { onDelete: 'set null' }),
    queuedAt: timestamp({ withTimezone: true }),
    lastMessageId: integer(),
    lastMessagePreview: text(),
    lastMessageAt: timestamp({ withTimezone: true }),
    lastInboundAt: timestamp({ withTimezone: true }),
    unreadCount: integer().notNull().default(0),
    followUp: boolean().notNull().default(false),
    workspaceNotes: text().notNull().default(''),
    status: text({ enum: CONVERSATION_STATUSES }).notNull().default('open'),
    statusChangedAt: timestamp({ withTimezone: true }),
    statusChangedBy: integer().references(() => employee.id),
    snoozedUntil: timestamp({ withTimezone: true }),
    /** The SLA clocks of the conversation's policy (service-levels room, `sla-state.ts`); null without a policy. */
    slaState: jsonb().$type<SlaState>(),
    /**
     * Its labels (issue 49): its own (`conversation_label`), its contact's and its lead's (`contact_label`,
     * `lead_label` of records), each once, by id; kept by the triggers of migration 0030, never written here.
     * `labels` says where each comes from, the nearest source first.
     */
    labelIds: integer()
      .array()
      .notNull()
      .default(sql`'{}'::integer[]`),
    labels: jsonb().$type<{ id: number; source: 'conversation' | 'contact' | 'lead' }[]>().notNull().default([]),
    ...timestampColumns(),
  },
  (t) => [
    uniqueIndex('conversation_entity_channel_account_id_external_chat_id_uq').on(t.entityChannelAccountId, t.externalChatId),
    // The inbox, newest activity first; its last two columns let a restricted agent's queues' page (way 2 below)
    // be read from the index alone.
    index('conversation_entity_id_last_message_at_idx').on(t.entityId, t.lastMessageAt, t.id, t.queueId, t.assignmentStatus),
    // The inbox tabs: an entity's conversations of a status, newest activity first.
    index('conversation_entity_id_status_last_message_at_idx').on(t.entityId, t.status, t.lastMessageAt, t.id),
    // The tab counts read only this index (status × assignment of every conversation of the entity).
    index('conversation_entity_id_status_assignment_idx').on(t.entityId, t.status, t.assignmentStatus, t.assignedEmployeeId),
    // The inbox search (`q`): trigram indexes answer ILIKE '%text%' (pg_trgm, migration 0011).
    index('conversation_sender_name_trgm_idx').using('gin', t.senderName.op('gin_trgm_ops')),
    index('conversation_external_chat_id_trgm_idx').using('gin', t.externalChatId.op('gin_trgm_ops')),
    index('conversation_last_message_preview_trgm_idx').using('gin', t.lastMessagePreview.op('gin_trgm_ops')),
    // The three ways a restricted agent sees a conversation (conversation-visibility.ts `visibilityBranches`),
    // each served by one index that holds every column the inbox reads of it: a page of the list reads a range
    // of it, the tab counts read it alone (index-only), without the table's rows.
    // 1. Their own conversations, newest activity first.
    index('conversation_entity_id_assignee_activity_idx').on(t.entityId, t.assignedEmployeeId, t.assignmentStatus, t.lastMessageAt, t.id, t.status),
    // 2. Waiting in their queues (also the queue's order for routing).
    index('conversation_queue_id_queued_at_idx').on(t.queueId, t.queuedAt, t.entityId, t.assignmentStatus, t.status, t.assignedEmployeeId),
    // 3. Their leads' (also a lead's conversations for the cartera read model's latest interaction).
    index('conversation_lead_id_activity_idx').on(t.leadId, t.entityId, t.lastMessageAt, t.id, t.status, t.assignmentStatus, t.assignedEmployeeId, t.queueId),
    // A contact's conversations in the order they were opened: whether a new conversation's first message is the
    // contact's first (inbound intake), without reading the entity's other conversations.
    index('conversation_contact_id_id_idx').on(t.contactId, t.id),
    // The inbox's label filters (`label_ids && ...`, `@> ...`); unlabelled conversations, most of them, stay out of it.
    index('conversation_label_ids_idx')
      .using('gin', t.labelIds)
      .where(sql`${t.labelIds} <> '{}'::integer[]`),
  ],
);
