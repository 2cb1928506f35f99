import { sql } from 'drizzle-orm';
import { boolean, index, integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { idColumn, timestampColumns } from '../../db/columns.js';
import { entityIdColumn } from '../identity/entity.table.js';
import { appUser } from '../identity/user.table.js';

/**
 * API keys of integrators (issue 53): one entity each, acting as their creator's employee-like principal
 * (`api_key:<id>`) with at most `codes`. Only the SHA-256 of the secret is kept (`secret_hash`, hex: a
 * 256-bit random secret needs no slow hash); `prefix` is its first characters, shown in lists so a person
 * can tell keys apart. `expires_at` is null only where the entity's policy allows keys without expiry.
 */
export const apiKey = pgTable(
  'api_key',
  {
    id: idColumn(),
    entityId: entityIdColumn(),
    name: text().notNull(),
    prefix: text().notNull(),
    secretHash: text().notNull(),
    /** Permission codes granted, closed under implications; effective: these ∩ the creator's own now. */
    codes: text().array().notNull(),
    createdByUserId: integer()
      .notNull()
      .references(() => appUser.id, { onDelete: 'cascade' }),
    expiresAt: timestamp({ withTimezone: true }),
    lastUsedAt: timestamp({ withTimezone: true }),
    revokedAt: timestamp({ withTimezone: true }),
    ...timestampColumns(),
  },
  (t) => [uniqueIndex('api_key_secret_hash_uq').on(t.secretHash), index('api_key_entity_id_idx').on(t.entityId, sql`${t.id} desc`)],
);

/** Per-entity rules for API keys; no row means the defaults (every key expires). */
export const apiKeyPolicy = pgTable('api_key_policy', {
  entityId: entityIdColumn().primaryKey(),
  allowNonExpiring: boolean().notNull().default(false),
  ...timestampColumns(),
});
