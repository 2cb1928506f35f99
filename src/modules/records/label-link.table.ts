import { index, integer, pgTable, primaryKey } from 'drizzle-orm/pg-core';
import { timestampColumn } from '../../db/columns.js';
import { entityIdColumn } from '../identity/entity.table.js';
import { employee } from '../identity/employee.table.js';
import { label } from '../labels/label.table.js';
import { contact } from './contact.table.js';
import { lead } from './lead.table.js';

/**
 * The labels of contacts and of leads (issue 49), from the labels module's catalogue. A label deleted there, or
 * the contact or lead deleted here, takes its links with it. Their conversations show these labels too (source
 * `contact` or `lead`): triggers of migration 0030 keep `conversation.label_ids` equal to the conversation's own
 * labels and its contact's and lead's, the contract of interactions' inbox filter with this module.
 */
export const contactLabel = pgTable(
  'contact_label',
  {
    contactId: integer()
      .notNull()
      .references(() => contact.id, { onDelete: 'cascade' }),
    labelId: integer()
      .notNull()
      .references(() => label.id, { onDelete: 'cascade' }),
    entityId: entityIdColumn(),
    createdByEmployeeId: integer().references(() => employee.id, { onDelete: 'set null' }),
    createdAt: timestampColumn(),
  },
  (t) => [primaryKey({ columns: [t.contactId, t.labelId] }), index('contact_label_label_id_idx').on(t.labelId, t.contactId)],
);

export const leadLabel = pgTable(
  'lead_label',
  {
    leadId: integer()
      .notNull()
      .references(() => lead.id, { onDelete: 'cascade' }),
    labelId: integer()
      .notNull()
      .references(() => label.id, { onDelete: 'cascade' }),
    entityId: entityIdColumn(),
    createdByEmployeeId: integer().references(() => employee.id, { onDelete: 'set null' }),
    createdAt: timestampColumn(),
  },
  (t) => [primaryKey({ columns: [t.leadId, t.labelId] }), index('lead_label_label_id_idx').on(t.labelId, t.leadId)],
);
