import { integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/** A company sharing the deployment; every domain row carries its `entity_id`. */
export const entity = pgTable('entity', {
  id: integer().primaryKey().generatedByDefaultAsIdentity(),
  name: text().notNull(),
  logoUrl: text(),
  /** IANA time zone, used by scheduled workflows when a trigger names none. */
  timeZone: text().notNull().default('America/Guatemala'),
  erpEntityId: integer(),
  createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
});

/** `entity_id integer not null references entity(id)`: the tenant of a row, for every module's tables. */
export const entityIdColumn = () =>
  integer()
    .notNull()
    .references(() => entity.id);
