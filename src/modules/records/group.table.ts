import { index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { entity } from '../admin/entity.table.js';

/** A group of leads (a household, a company with branches...): top of group > lead/client > contact. */
export const crmGroup = pgTable(
  'crm_group',
  {
    id: integer().primaryKey().generatedByDefaultAsIdentity(),
    entityId: integer()
      .notNull()
      .references(() => entity.id),
    name: text().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('crm_group_entity_id_name_idx').on(t.entityId, t.name), index('crm_group_entity_id_id_idx').on(t.entityId, t.id)],
);
