import { idColumn, timestampColumns } from '../../db/columns.js';
import { integer, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';

/** A person who can log in; e-mails are stored lower-cased. */
export const appUser = pgTable(
  'app_user',
  {
    id: idColumn(),
    email: text().notNull(),
    name: text().notNull(),
    /** argon2id PHC string; null until set (see AUTH_ALLOW_FIRST_LOGIN_PASSWORD_BOOTSTRAP). */
    passwordHash: text(),
    erpUserId: integer(),
    ...timestampColumns(),
  },
  (t) => [uniqueIndex('app_user_email_uq').on(t.email)],
);
