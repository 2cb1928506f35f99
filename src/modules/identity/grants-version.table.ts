import { sql } from 'drizzle-orm';
import { boolean, check, pgTable, uuid } from 'drizzle-orm/pg-core';

/**
 * One row: the version of everything a permission resolution reads (subscriptions, their overrides, roles
 * and their base codes), replaced by statement triggers on those tables in the transaction that changes
 * them (migrations/0023_grants_version_maintenance.sql). The guard reads it with the membership on every
 * request and reads the subscriptions again only when it changed (docs/decisions.md, "Grants version").
 * Random rather than a counter: a database restored from a backup, or rebuilt, never brings back a version
 * that a running service remembers with other grants.
 */
export const grantsVersion = pgTable(
  'grants_version',
  {
    singleton: boolean().primaryKey().default(true),
    version: uuid().notNull().defaultRandom(),
  },
  (t) => [check('grants_version_singleton', sql`${t.singleton}`)],
);
