import { idColumn, timestampColumns, timestampColumn } from '../../db/columns.js';
import { entityIdColumn } from '../identity/entity.table.js';
import { boolean, index, integer, pgEnum, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { crmGroup } from './group.table.js';
import { lead } from './lead.table.js';

/** A person of a lead; `group_id` is kept alongside `lead_id` so `GET /contacts?group_id=` is one indexed query. */
export const contact = pgTable(
  'contact',
  {
    id: idColumn(),
    entityId: entityIdColumn(),
    groupId: integer()
      .notNull()
      .references(() => crmGroup.id),
    leadId: integer()
      .notNull()
      .references(() => lead.id),
    name: text().notNull(),
    ...timestampColumns(),
  },
  (t) => [index('contact_entity_id_group_id_idx').on(t.entityId, t.groupId), index('contact_entity_id_lead_id_idx').on(t.entityId, t.leadId)],
);

export const contactChannelType = pgEnum('contact_channel_type', ['phone', 'whatsapp', 'email', 'instagram', 'messenger', 'web']);

/**
 * One way of reaching a contact. `identifier` is normalized (E.164 phone, lower-cased e-mail, platform
 * user id) and unique per entity and type, so one person never becomes two contacts. `is_manual` marks
 * channels typed by a user rather than learned from a conversation.
 */
export const contactChannel = pgTable(
  'contact_channel',
  {
    id: idColumn(),
    entityId: entityIdColumn(),
    contactId: integer()
      .notNull()
      .references(() => contact.id, { onDelete: 'cascade' }),
    type: contactChannelType().notNull(),
    identifier: text().notNull(),
    label: text(),
    isManual: boolean().notNull().default(false),
    createdAt: timestampColumn(),
  },
  (t) => [
    uniqueIndex('contact_channel_entity_id_type_identifier_uq').on(t.entityId, t.type, t.identifier),
    index('contact_channel_contact_id_idx').on(t.contactId),
  ],
);
