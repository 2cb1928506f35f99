import { sql } from 'drizzle-orm';
import { pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { idColumn, timestampColumns } from '../../db/columns.js';
import { entityIdColumn } from '../identity/entity.table.js';

/**
 * The entity's one label catalogue (issue 49): what agents mark conversations, contacts and leads with.
 * `name` is unique within the entity whatever its case. Each subject's links live with the subject's owner
 * (`conversation_label` in interactions, `contact_label` and `lead_label` in records), each referencing a
 * label with `on delete cascade`: renaming a label renames it everywhere, deleting it removes it everywhere.
 */
export const label = pgTable(
  'label',
  {
    id: idColumn(),
    entityId: entityIdColumn(),
    name: text().notNull(),
    /** `#rrggbb`. */
    color: text().notNull(),
    description: text(),
    ...timestampColumns(),
  },
  (t) => [uniqueIndex('label_entity_id_name_uq').on(t.entityId, sql`lower(${t.name})`)],
);
