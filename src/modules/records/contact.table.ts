import { idColumn, timestampColumns, timestampColumn } from '../../db/columns.js';
import { entityIdColumn } from '../identity/entity.table.js';
import { boolean, index, integer, pgEnum, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
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
    /** The name as search matches it (issue 51): lower-cased, accents folded. */
    searchText: text().generatedAlwaysAs(sql`lower(search_unaccent(name))`),
  },
  (t) => [
    index('contact_search_text_trgm_idx').using('gin', t.searchText.op('gin_trgm_ops')),
    index('contact_entity_id_group_id_idx').on(t.entityId, t.groupId),
    index('contact_entity_id_lead_id_idx').on(t.entityId, t.leadId),
  ],
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
    /** A phone's (or WhatsApp number's) digits, for search by any format or the last digits (issue 51). */
    phoneDigits: text().generatedAlwaysAs(sql`case when type in ('phone', 'whatsapp') then search_digits(identifier) end`),
  },
  (t) => [
    // Search (src/modules/search): e-mails and user ids by substring, phones by their digits.
    index('contact_channel_identifier_trgm_idx').using('gin', t.identifier.op('gin_trgm_ops')),
    index('contact_channel_phone_digits_trgm_idx').using('gin', t.phoneDigits.op('gin_trgm_ops')),
    uniqueIndex('contact_channel_entity_id_type_identifier_uq').on(t.entityId, t.type, t.identifier),
    index('contact_channel_contact_id_idx').on(t.contactId),
  ],
);
