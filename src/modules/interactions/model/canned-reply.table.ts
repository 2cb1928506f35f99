import { sql } from 'drizzle-orm';
import { check, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { idColumn, timestampColumns } from '../../../db/columns.js';
import { entityIdColumn } from '../../identity/entity.table.js';
import { employee } from '../../identity/employee.table.js';
import { routingQueue } from './routing.table.js';

/**
 * A saved answer (issue 49): the agent's own (`personal`, `owner_employee_id`), a routing queue's members'
 * (`queue`, `queue_id`) or the whole entity's (`entity`). A shortcode is unique within its scope. `attachments`
 * are media objects of the entity; `template` names the approved template sent instead outside WhatsApp's
 * service window. `title_key` and `search_text` are the title and the shortcode, title and body lower-cased and
 * without accents, what search matches.
 */
export const cannedReply = pgTable(
  'canned_reply',
  {
    id: idColumn(),
    entityId: entityIdColumn(),
    scope: text().$type<'personal' | 'queue' | 'entity'>().notNull(),
    ownerEmployeeId: integer().references(() => employee.id),
    queueId: integer().references(() => routingQueue.id, { onDelete: 'cascade' }),
    shortcode: text().notNull(),
    title: text().notNull(),
    body: text().notNull(),
    attachments: jsonb().$type<number[]>().notNull().default([]),
    template: jsonb().$type<{ name: string; language: string } | null>(),
    titleKey: text().notNull(),
    searchText: text().notNull(),
    usageCount: integer().notNull().default(0),
    createdByEmployeeId: integer().references(() => employee.id),
    ...timestampColumns(),
  },
  (t) => [
    uniqueIndex('canned_reply_shortcode_uq').on(t.entityId, t.scope, sql`coalesce(${t.ownerEmployeeId}, 0)`, sql`coalesce(${t.queueId}, 0)`, t.shortcode),
    index('canned_reply_entity_id_scope_idx').on(t.entityId, t.scope),
    check(
      'canned_reply_scope_ck',
      sql`(${t.scope} = 'personal' and ${t.ownerEmployeeId} is not null and ${t.queueId} is null)
       or (${t.scope} = 'queue' and ${t.queueId} is not null and ${t.ownerEmployeeId} is null)
       or (${t.scope} = 'entity' and ${t.ownerEmployeeId} is null and ${t.queueId} is null)`,
    ),
  ],
);

/** How often each agent used each reply (render-and-send or send). */
export const cannedReplyUsage = pgTable(
  'canned_reply_usage',
  {
    cannedReplyId: integer()
      .notNull()
      .references(() => cannedReply.id, { onDelete: 'cascade' }),
    employeeId: integer()
      .notNull()
      .references(() => employee.id),
    entityId: entityIdColumn(),
    uses: integer().notNull().default(0),
    lastUsedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.cannedReplyId, t.employeeId] })],
);
