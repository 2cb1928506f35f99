import { idColumn, timestampColumns } from '../../db/columns.js';
import { entityIdColumn } from '../identity/entity.table.js';
import { index, pgTable, text } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';

/** A group of leads (a household, a company with branches...): top of group > lead/client > contact. */
export const crmGroup = pgTable(
  'crm_group',
  {
    id: idColumn(),
    entityId: entityIdColumn(),
    name: text().notNull(),
    ...timestampColumns(),
    /** The name as search matches it (issue 51): lower-cased, accents folded. */
    searchText: text().generatedAlwaysAs(sql`lower(search_unaccent(name))`),
  },
  (t) => [
    index('crm_group_search_text_trgm_idx').using('gin', t.searchText.op('gin_trgm_ops')),
    index('crm_group_entity_id_name_idx').on(t.entityId, t.name),
    index('crm_group_entity_id_id_idx').on(t.entityId, t.id),
  ],
);
