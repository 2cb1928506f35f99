import { idColumn, timestampColumns } from '../../../db/columns.js';
import { entityIdColumn } from '../../identity/entity.table.js';
import { jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { TEMPLATE_CATEGORIES, TEMPLATE_STATUSES } from './interactions.enums.js';

/**
 * A message template of the entity (WhatsApp's model: name + language, category, components). `status`
 * follows the platform's review (`pending` → `approved` | `rejected`, later `paused`), kept in sync from
 * the communications service; only `approved` templates can be sent.
 */
export const interactionTemplate = pgTable(
  'interaction_template',
  {
    id: idColumn(),
    entityId: entityIdColumn(),
    name: text().notNull(),
    language: text().notNull(),
    category: text({ enum: TEMPLATE_CATEGORIES }).notNull(),
    /** `positional` ({{1}}) or `named` ({{first_name}}) body parameters. */
    parameterFormat: text({ enum: ['positional', 'named'] }).notNull(),
    components: jsonb().notNull(),
    status: text({ enum: TEMPLATE_STATUSES }).notNull().default('pending'),
    providerTemplateId: text(),
    rejectionReason: text(),
    ...timestampColumns(),
  },
  (t) => [uniqueIndex('interaction_template_entity_id_name_language_uq').on(t.entityId, t.name, t.language)],
);
