import { idColumn, timestampColumns } from '../../../db/columns.js';
import { entityIdColumn } from '../../identity/entity.table.js';
import { pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';

/**
 * Per-entity communications configuration (SPEC interaction_communications_config). Inbound events whose
 * receiving account has no channel account are resolved through `external_app_id`. `api_key` and
 * `meta_access_token` are stored encrypted (`*_encrypted`) and never returned.
 */
export const interactionCommunicationsConfig = pgTable(
  'interaction_communications_config',
  {
    id: idColumn(),
    entityId: entityIdColumn(),
    communicationsEntityId: text(),
    externalAppId: text(),
    baseUrl: text(),
    apiKeyEncrypted: text(),
    metaAccessTokenEncrypted: text(),
    ...timestampColumns(),
  },
  (t) => [
    uniqueIndex('interaction_communications_config_entity_id_uq').on(t.entityId),
    uniqueIndex('interaction_communications_config_external_app_id_uq').on(t.externalAppId),
  ],
);
