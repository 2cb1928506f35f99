import { integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * The time zone of an entity that names none: the `entity.time_zone` column's default, and the fallback
 * of `IdentityService.timeZoneOf` (docs/decisions.md, "Issue 47: the holes").
 */
export const DEFAULT_ENTITY_TIME_ZONE = 'America/Guatemala';

/** A company sharing the deployment; every domain row carries its `entity_id`. */
export const entity = pgTable('entity', {
  id: integer().primaryKey().generatedByDefaultAsIdentity(),
  name: text().notNull(),
  logoUrl: text(),
  /** IANA time zone, used by scheduled workflows when a trigger names none. */
  timeZone: text().notNull().default(DEFAULT_ENTITY_TIME_ZONE),
  erpEntityId: integer(),
  createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
});

/** `entity_id integer not null references entity(id)`: the tenant of a row, for every module's tables. */
export const entityIdColumn = () =>
  integer()
    .notNull()
    .references(() => entity.id);
