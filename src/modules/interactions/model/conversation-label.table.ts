import { index, integer, pgTable, primaryKey } from 'drizzle-orm/pg-core';
import { timestampColumn } from '../../../db/columns.js';
import { entityIdColumn } from '../../identity/entity.table.js';
import { employee } from '../../identity/employee.table.js';
import { label } from '../../labels/label.table.js';
import { conversation } from './conversation.table.js';

/**
 * The labels put on a conversation itself (issue 49), from the labels module's catalogue. What the inbox
 * filters on is `conversation.label_ids`: these and the conversation's contact's and lead's labels, kept by the
 * triggers of migration 0030.
 */
export const conversationLabel = pgTable(
  'conversation_label',
  {
    conversationId: integer()
      .notNull()
      .references(() => conversation.id, { onDelete: 'cascade' }),
    labelId: integer()
      .notNull()
      .references(() => label.id, { onDelete: 'cascade' }),
    entityId: entityIdColumn(),
    createdByEmployeeId: integer().references(() => employee.id, { onDelete: 'set null' }),
    createdAt: timestampColumn(),
  },
  (t) => [primaryKey({ columns: [t.conversationId, t.labelId] }), index('conversation_label_label_id_idx').on(t.labelId, t.conversationId)],
);
