import { idColumn, timestampColumn } from '../../db/columns.js';
import { entityIdColumn } from '../identity/entity.table.js';
import { integer, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { contact } from '../records/contact.table.js';

/** A per-entity key a web form sends with each submission; it selects the entity the contact belongs to. */
export const formKey = pgTable(
  'form_key',
  {
    id: idColumn(),
    entityId: entityIdColumn(),
    key: text().notNull(),
    name: text().notNull(),
    createdAt: timestampColumn(),
  },
  (t) => [uniqueIndex('form_key_key_uq').on(t.key)],
);

/** One ingested submission; unique per entity and submission id, which makes ingest idempotent. */
export const formSubmission = pgTable(
  'form_submission',
  {
    id: idColumn(),
    entityId: entityIdColumn(),
    formKeyId: integer()
      .notNull()
      .references(() => formKey.id),
    submissionId: text().notNull(),
    contactId: integer()
      .notNull()
      .references(() => contact.id),
    createdAt: timestampColumn(),
  },
  (t) => [uniqueIndex('form_submission_entity_id_submission_id_uq').on(t.entityId, t.submissionId)],
);
