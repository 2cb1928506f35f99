import { jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Database level of the ERP catalog cache (SPEC "Limits": `external_catalog_caches`, TTL
 * ERP_CATALOG_CACHE_TTL_DAYS). Catalogs are reference data shared by every entity (currencies,
 * Guatemala's departments and municipalities), so rows carry no `entity_id` (docs/decisions.md).
 */
export const externalCatalogCaches = pgTable('external_catalog_caches', {
  key: text().primaryKey(),
  payload: jsonb().notNull(),
  fetchedAt: timestamp({ withTimezone: true }).notNull(),
  expiresAt: timestamp({ withTimezone: true }).notNull(),
});
