import { idColumn, timestampColumns } from '../../db/columns.js';
import { entityIdColumn } from '../identity/entity.table.js';
import { index, pgTable, text } from 'drizzle-orm/pg-core';

/** A group of leads (a household, a company with branches...): top of group > lead/client > contact. */
export const crmGroup = pgTable(
  'crm_group',
  {
    id: idColumn(),
    entityId: entityIdColumn(),
    name: text().notNull(),
    ...timestampColumns(),
  },
  (t) => [index('crm_group_entity_id_name_idx').on(t.entityId, t.name), index('crm_group_entity_id_id_idx').on(t.entityId, t.id)],
);
