import { idColumn, timestampColumns } from '../../db/columns.js';
import { entityIdColumn } from '../identity/entity.table.js';
import { integer, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { appUser } from '../identity/user.table.js';

/**
 * The server-held ERP session of one (user, entity, client kind) (SPEC "ERP session snapshot").
 * `sealed` holds the API key, the GraphQL JWT, the profile and the snapshot metadata, encrypted and
 * MAC-bound to the scope (src/platform/crypto/sealed-box.ts); nothing readable is kept beside it.
 */
export const erpSession = pgTable(
  'erp_session',
  {
    id: idColumn(),
    userId: integer()
      .notNull()
      .references(() => appUser.id, { onDelete: 'cascade' }),
    entityId: entityIdColumn(),
    clientKind: text().notNull(),
    sealed: text().notNull(),
    ...timestampColumns(),
  },
  (t) => [uniqueIndex('erp_session_user_id_entity_id_client_kind_uq').on(t.userId, t.entityId, t.clientKind)],
);
