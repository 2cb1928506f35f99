import { boolean, index, integer, jsonb, pgEnum, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { idColumn, timestampColumns, timestampColumn } from '../../db/columns.js';
import { entityIdColumn } from '../identity/entity.table.js';
import { mediaObject } from '../media/media.table.js';

export const importKind = pgEnum('import_kind', ['leads', 'contacts']);
export const importStatus = pgEnum('import_status', ['queued', 'running', 'completed', 'failed', 'cancelled']);

/**
 * One import of a file (issue 52): what it reads (`media_id`, its format and how it was read), how columns map
 * to fields (`options`: mapping, match key, what a match does, default phone country), and its progress. The
 * real run's checkpoint is `rows_done` (data rows read and settled), moved in the transaction that writes their
 * records, so a resumed run starts where the last commit left and never writes a row twice. A dry run
 * (`dry_run`) counts the same way and writes no record.
 */
export const importJob = pgTable(
  'import_job',
  {
    id: idColumn(),
    entityId: entityIdColumn(),
    kind: importKind().notNull(),
    dryRun: boolean().notNull().default(false),
    status: importStatus().notNull().default('queued'),
    mediaId: integer()
      .notNull()
      .references(() => mediaObject.id),
    /** `{ format, encoding, delimiter, sheet, mapping, match_by, on_match, default_country }` as answered. */
    options: jsonb().notNull(),
    /** Data rows in the file (the header not counted), counted before any work. */
    totalRows: integer().notNull(),
    rowsDone: integer().notNull().default(0),
    created: integer().notNull().default(0),
    updated: integer().notNull().default(0),
    skipped: integer().notNull().default(0),
    errors: integer().notNull().default(0),
    /** Storage key of the xlsx error report once the run ended with errors. */
    reportKey: text(),
    /** Why the run failed (a file that could not be read any more). */
    failure: text(),
    createdByEmployeeId: integer(),
    /** Last batch committed by a worker: a running import silent for long is resumed elsewhere. */
    heartbeatAt: timestamp({ withTimezone: true }),
    finishedAt: timestamp({ withTimezone: true }),
    ...timestampColumns(),
  },
  (t) => [index('import_job_entity_id_created_at_idx').on(t.entityId, t.createdAt)],
);

/** A row that was not imported, with the column at fault (null: the row as a whole) and the reason. */
export const importError = pgTable(
  'import_error',
  {
    id: idColumn(),
    importId: integer()
      .notNull()
      .references(() => importJob.id, { onDelete: 'cascade' }),
    /** Row of the file, the header being row 1. */
    row: integer().notNull(),
    column: text(),
    reason: text().notNull(),
    createdAt: timestampColumn(),
  },
  (t) => [uniqueIndex('import_error_import_id_row_uq').on(t.importId, t.row)],
);

/** A saved column mapping, reused for the next file of the same shape (unique name per entity and kind). */
export const importTemplate = pgTable(
  'import_template',
  {
    id: idColumn(),
    entityId: entityIdColumn(),
    kind: importKind().notNull(),
    name: text().notNull(),
    /** Header text → field code (`name`, `phone`, ...), as `ImportMapping`. */
    mapping: jsonb().notNull(),
    ...timestampColumns(),
  },
  (t) => [uniqueIndex('import_template_entity_id_kind_name_uq').on(t.entityId, t.kind, sql`lower(${t.name})`)],
);
