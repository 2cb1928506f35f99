import { boolean, index, integer, json, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { entityIdColumn } from '../identity/entity.table.js';
import { lead } from '../records/lead.table.js';

/** A lead's seller as the cartera item shows it. */
export interface CarteraItemSeller {
  id: number;
  name: string;
}

/**
 * The cartera read model (SPEC "Cartera (portfolio) view item"): one row per lead holding everything
 * its portfolio row shows, so a page is one index range scan. Written only by the database triggers of
 * migrations/0002_cartera_item_maintenance.sql, in the transaction of every change to a lead, its group,
 * contacts, stored sellers (`lead_seller`), the sellers' names or its conversations; never by the service
 * (docs/decisions.md, "Cartera read model").
 */
export const carteraItem = pgTable(
  'cartera_item',
  {
    leadId: integer()
      .primaryKey()
      .references(() => lead.id, { onDelete: 'cascade' }),
    entityId: entityIdColumn(),
    /** The lead has an `erp_id`: it is listed under clients. */
    isClient: boolean().notNull(),
    groupId: integer().notNull(),
    groupName: text().notNull(),
    name: text().notNull(),
    erpId: text(),
    /** The lead's `created_at`. */
    createdAt: timestamp({ withTimezone: true }).notNull(),
    /** Both sources of the seller derivation, each in assignment order; null when the lead has no seller at all. */
    sellers: json().$type<{ direct: CarteraItemSeller[]; inherited: CarteraItemSeller[] }>(),
    /** The latest contact of the lead (by `created_at`, then id). */
    contactId: integer(),
    contactName: text(),
    /** The lead's conversation with the latest message. */
    conversationId: integer(),
    interactionChannel: text(),
    interactionAt: timestamp({ withTimezone: true }),
    /**
     * The row as its list item (SPEC "Cartera (portfolio) view item", `CarteraItem` of cartera.service.ts),
     * compact JSON derived from the columns above by the row trigger of
     * migrations/0024_cartera_item_json.sql on every write: a page answers these texts as they are,
     * so the service neither parses, maps nor serializes its rows (docs/decisions.md, "Cartera items
     * stored as JSON").
     */
    item: json().notNull(),
  },
  (t) => [
    // One index per sort of the lists, and the export's keyset order.
    index('cartera_item_entity_id_is_client_created_at_idx').on(t.entityId, t.isClient, t.createdAt, t.leadId),
    index('cartera_item_entity_id_is_client_name_idx').on(t.entityId, t.isClient, t.name, t.leadId),
    index('cartera_item_entity_id_is_client_group_name_idx').on(t.entityId, t.isClient, t.groupName, t.leadId),
    index('cartera_item_entity_id_is_client_lead_id_idx').on(t.entityId, t.isClient, t.leadId),
    index('cartera_item_entity_id_group_id_idx').on(t.entityId, t.groupId),
  ],
);

/**
 * The seller side of the read model: one row per cartera item and effective seller (the direct sellers of
 * the item's `sellers`, else the inherited ones: SPEC "Cartera", a direct assignment wins), with the
 * item's sort key, so a seller's portfolio page is one range scan of the seller's own index entries in
 * the list's order and its capped count reads only index entries, whatever the seller's share of the
 * leads. Written only by the statement triggers on `cartera_item` of
 * migrations/0014_cartera_seller_item_maintenance.sql, in the transaction that changed the item.
 */
export const carteraSellerItem = pgTable(
  'cartera_seller_item',
  {
    leadId: integer()
      .notNull()
      .references(() => carteraItem.leadId, { onDelete: 'cascade' }),
    /** An effective seller of the lead (an employee id; no foreign key: the item's `sellers` is the source). */
    employeeId: integer().notNull(),
    entityId: entityIdColumn(),
    /** The item's `is_client` and `created_at`. */
    isClient: boolean().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull(),
  },
  (t) => [
    primaryKey({ name: 'cartera_seller_item_pkey', columns: [t.leadId, t.employeeId] }),
    // The creation sorts of a seller's portfolio (both directions) and its capped count.
    index('cartera_seller_item_seller_created_at_idx').on(t.entityId, t.employeeId, t.isClient, t.createdAt, t.leadId),
  ],
);
