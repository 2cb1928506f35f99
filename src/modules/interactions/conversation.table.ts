import { idColumn, timestampColumns } from '../../db/columns.js';
import { entityIdColumn } from '../identity/entity.table.js';
import { boolean, index, integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { employee } from '../identity/employee.table.js';
import { contact } from '../records/contact.table.js';
import { lead } from '../records/lead.table.js';
import { crmGroup } from '../records/group.table.js';
import { entityChannelAccount } from './entity-channel-account.table.js';
import { routingQueue } from './routing.table.js';
import { ASSIGNMENT_STATUSES, CHANNEL_TYPE_CODES } from './interactions.enums.js';

/**
 * The local record of one chat: one customer (`external_chat_id`: WhatsApp wa_id, Messenger PSID,
 * Instagram IGSID) on one channel account of the entity. `assignment_status` is `unassigned`, `queued`
 * (waiting in `queue_id` for a free member) or `assigned` (to `assigned_employee_id`).
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
    ...timestampColumns(),
  },
  (t) => [
    uniqueIndex('conversation_entity_channel_account_id_external_chat_id_uq').on(t.entityChannelAccountId, t.externalChatId),
    index('conversation_entity_id_last_message_at_idx').on(t.entityId, t.lastMessageAt, t.id),
    index('conversation_entity_id_assigned_employee_id_idx').on(t.entityId, t.assignedEmployeeId, t.assignmentStatus),
    index('conversation_queue_id_queued_at_idx').on(t.queueId, t.queuedAt),
    // A lead's conversations: the cartera read model's latest interaction.
    index('conversation_lead_id_idx').on(t.leadId),
  ],
);
