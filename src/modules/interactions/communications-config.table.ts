import { integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { entity } from '../admin/entity.table.js';

/**
 * Per-entity communications configuration (SPEC interaction_communications_config). Inbound events whose
 * receiving account has no channel account are resolved through `external_app_id`. `api_key` and
 * `meta_access_token` are stored encrypted (`*_encrypted`) and never returned.
 */
export const interactionCommunicationsConfig = pgTable(
  'interaction_communications_config',
  {
    id: integer().primaryKey().generatedByDefaultAsIdentity(),
    entityId: integer()
      .notNull()
      .references(() => entity.id),
    communicationsEntityId: text(),
    externalAppId: text(),
    baseUrl: text(),
    apiKeyEncrypted: text(),
    metaAccessTokenEncrypted: text(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('interaction_communications_config_entity_id_uq').on(t.entityId), uniqueIndex('interaction_communications_config_external_app_id_uq').on(t.externalAppId)],
);
