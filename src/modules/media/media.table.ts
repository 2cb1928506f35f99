import { idColumn, timestampColumns } from '../../db/columns.js';
import { entityIdColumn } from '../identity/entity.table.js';
import { sql } from 'drizzle-orm';
import { boolean, index, integer, pgEnum, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

/** Upload kinds with their own size limits (WhatsApp Cloud API media types). */
export const mediaKind = pgEnum('media_kind', ['image', 'audio', 'video', 'document', 'sticker']);
/** pending: presigned, not finalized; processing: finalized, queued or running; ready / failed: done. */
export const mediaStatus = pgEnum('media_status', ['pending', 'processing', 'ready', 'failed']);

/**
 * A media object of an entity (SPEC "Media"): the uploaded original and, once processed, its optimized
 * version. `processing` says what processing did: `optimized` (converted), `unchanged` (documents) or
 * `unprocessed` (the converter was missing; the original is served).
 */
export const mediaObject = pgTable(
  'media_object',
  {
    id: idColumn(),
    entityId: entityIdColumn(),
    kind: mediaKind().notNull(),
    /** Declared content type, checked against the sniffed type at finalize. */
    contentType: text().notNull(),
    fileName: text().notNull(),
    /** Declared size in bytes. */
    size: integer().notNull(),
    /** Audio only: convert to a voice note (ogg/opus) rather than m4a/aac. */
    voiceNote: boolean().notNull().default(false),
    status: mediaStatus().notNull().default('pending'),
    error: text(),
    originalKey: text().notNull(),
    originalDeletedAt: timestamp({ withTimezone: true }),
    optimizedKey: text(),
    optimizedContentType: text(),
    optimizedSize: integer(),
    /** Strong validator of the optimized bytes (hex SHA-256), sent as the public `ETag`. */
    optimizedSha256: text(),
    processing: text({ enum: ['optimized', 'unchanged', 'unprocessed'] }),
    createdByEmployeeId: integer(),
    /**
     * A website chat visitor's upload (issue 48): the visitor and the website (its web channel account). It
     * counts against the visitor's and the website's budgets, never against the entity's quotas.
     */
    visitorId: integer(),
    websiteId: integer(),
    finalizedAt: timestamp({ withTimezone: true }),
    processedAt: timestamp({ withTimezone: true }),
    ...timestampColumns(),
  },
  (t) => [
    uniqueIndex('media_object_original_key_uq').on(t.originalKey),
    uniqueIndex('media_object_optimized_key_uq').on(t.optimizedKey),
    index('media_object_entity_id_idx').on(t.entityId, t.id),
    index('media_object_status_created_at_idx').on(t.status, t.createdAt),
    index('media_object_visitor_id_created_at_idx')
      .on(t.visitorId, t.createdAt)
      .where(sql`${t.visitorId} is not null`),
    index('media_object_website_id_created_at_idx')
      .on(t.websiteId, t.createdAt)
      .where(sql`${t.websiteId} is not null`),
  ],
);

export type MediaObjectRow = typeof mediaObject.$inferSelect;
