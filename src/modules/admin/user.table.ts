import { integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

/** A person who can log in; e-mails are stored lower-cased. */
export const appUser = pgTable(
  'app_user',
  {
    id: integer().primaryKey().generatedByDefaultAsIdentity(),
    email: text().notNull(),
    name: text().notNull(),
    /** argon2id PHC string; null until set (see AUTH_ALLOW_FIRST_LOGIN_PASSWORD_BOOTSTRAP). */
    passwordHash: text(),
    erpUserId: integer(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('app_user_email_uq').on(t.email)],
);
