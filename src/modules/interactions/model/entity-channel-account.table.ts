import { idColumn, timestampColumns } from '../../../db/columns.js';
import { entityIdColumn } from '../../identity/entity.table.js';
import { boolean, index, pgEnum, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { CHANNEL_TYPE_CODES } from './interactions.enums.js';

/** SPEC field registry values of `trigger.channel_type_code`. */
export const channelTypeCode = pgEnum('channel_type_code', CHANNEL_TYPE_CODES);

/**
 * An entity's account on a messaging platform: a WhatsApp number (`external_account_id` is its
 * `phone_number_id`), a Messenger page (page id) or an Instagram account (account id). Inbound events are
 * routed to the entity that owns the receiving account.
 */
export const entityChannelAccount = pgTable(
  'entity_channel_account',
  {
    id: idColumn(),
    entityId: entityIdColumn(),
    channelTypeCode: channelTypeCode().notNull(),
    externalAccountId: text().notNull(),
    displayName: text().notNull(),
    phoneNumber: text(),
    isActive: boolean().notNull().default(true),
    ...timestampColumns(),
  },
  (t) => [
    uniqueIndex('entity_channel_account_channel_type_code_external_account_id_uq').on(t.channelTypeCode, t.externalAccountId),
    index('entity_channel_account_entity_id_idx').on(t.entityId),
  ],
);
