import { idColumn, timestampColumns } from '../../db/columns.js';
import { entityIdColumn } from '../identity/entity.table.js';
import { index, integer, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { crmGroup } from './group.table.js';

/** A lead of a group; a lead with an `erp_id` is a client (SPEC: not a separate type). */
export const lead = pgTable(
  'lead',
  {
    id: idColumn(),
    entityId: entityIdColumn(),
    groupId: integer()
      .notNull()
      .references(() => crmGroup.id),
    name: text().notNull(),
    /** ERP client identifier; set means the lead is a client. */
    erpId: text(),
    email: text(),
    phone: text(),
    taxId: text(),
    ...timestampColumns(),
  },
  (t) => [
    index('lead_entity_id_group_id_idx').on(t.entityId, t.groupId),
    index('lead_entity_id_created_at_idx').on(t.entityId, t.createdAt, t.id),
    // Lets GET /leads?kind= count leads (erp_id null) and clients (not null) from the index alone.
    index('lead_entity_id_erp_id_idx').on(t.entityId, t.erpId),
    uniqueIndex('lead_entity_id_erp_id_uq')
      .on(t.entityId, t.erpId)
      .where(sql`${t.erpId} is not null`),
  ],
);
