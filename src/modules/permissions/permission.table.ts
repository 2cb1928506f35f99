import { pgTable, primaryKey, text } from 'drizzle-orm/pg-core';

/** The permission catalogue as seeded from code (`permission.catalog.ts`); codes are dotted. */
export const permission = pgTable('permission', {
  code: text().primaryKey(),
  module: text().notNull(),
  label: text().notNull(),
  description: text(),
});

export const permissionImplication = pgTable(
  'permission_implication',
  {
    code: text()
      .notNull()
      .references(() => permission.code, { onDelete: 'cascade' }),
    impliesCode: text()
      .notNull()
      .references(() => permission.code, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ name: 'permission_implication_pkey', columns: [t.code, t.impliesCode] })],
);
