import { integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { entity } from '../admin/entity.table.js';
import { appUser } from '../admin/user.table.js';

/**
 * The server-held ERP session of one (user, entity, client kind) (SPEC "ERP session snapshot").
 * `sealed` holds the API key, the GraphQL JWT, the profile and the snapshot metadata, encrypted and
 * MAC-bound to the scope (src/platform/crypto/sealed-box.ts); nothing readable is kept beside it.
 */
export const erpSession = pgTable(
  'erp_session',
  {
    id: integer().primaryKey().generatedByDefaultAsIdentity(),
    userId: integer()
      .notNull()
      .references(() => appUser.id, { onDelete: 'cascade' }),
    entityId: integer()
      .notNull()
      .references(() => entity.id),
    clientKind: text().notNull(),
    sealed: text().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('erp_session_user_id_entity_id_client_kind_uq').on(t.userId, t.entityId, t.clientKind)],
);
