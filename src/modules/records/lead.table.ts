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
    /**
     * The lead as its list answers it (`LeadResponse`, SPEC "Leads"), compact JSON text, stored by the
     * database from the row's own columns on every write (`lead_list_item`, migration 0025): a page of
     * `GET /leads` sends these texts as they are. Generated, so no write path, trigger or bulk load can
     * leave it stale.
     */
    /** What search matches by substring (issue 51): name, e-mail, tax id and ERP id, lower-cased, accents folded. */
    searchText: text().generatedAlwaysAs(
      sql`lower(search_unaccent(name || ' ' || coalesce(email, '') || ' ' || coalesce(tax_id, '') || ' ' || coalesce(erp_id, '')))`,
    ),
    /** The phone's digits, so any format of a number (or its last digits) finds it. */
    phoneDigits: text().generatedAlwaysAs(sql`search_digits(phone)`),
    listItem: text().generatedAlwaysAs(sql`lead_list_item(id, group_id, name, erp_id, email, phone, tax_id, created_at, updated_at)`),
  },
  (t) => [
    index('lead_entity_id_group_id_idx').on(t.entityId, t.groupId),
    index('lead_entity_id_created_at_idx').on(t.entityId, t.createdAt, t.id),
    // Lets GET /leads?kind= count leads (erp_id null) and clients (not null) from the index alone.
    index('lead_entity_id_erp_id_idx').on(t.entityId, t.erpId),
    // Search (src/modules/search): trigram indexes answer substrings of three characters or more.
    index('lead_search_text_trgm_idx').using('gin', t.searchText.op('gin_trgm_ops')),
    index('lead_phone_digits_trgm_idx').using('gin', t.phoneDigits.op('gin_trgm_ops')),
    uniqueIndex('lead_entity_id_erp_id_uq')
      .on(t.entityId, t.erpId)
      .where(sql`${t.erpId} is not null`),
  ],
);
