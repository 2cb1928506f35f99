import { idColumn, timestampColumn, timestampColumns } from '../../../db/columns.js';
import { entityIdColumn } from '../../identity/entity.table.js';
import { index, integer, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { entityChannelAccount } from './entity-channel-account.table.js';

/** A pre-chat field the visitor fills before writing: off, asked, or required. */
export type PrechatRequirement = 'off' | 'optional' | 'required';
export interface PrechatFields {
  name: PrechatRequirement;
  email: PrechatRequirement;
  phone: PrechatRequirement;
}
export interface WidgetAppearance {
  /** `#rrggbb` of the launcher and the visitor's bubbles. */
  color: string;
  position: 'right' | 'left';
}

/**
 * The website settings of a `web` channel account (issue 32), one row per account. The account's
 * `external_account_id` is the public website token; the identity secret (HMAC-SHA256 key of identity
 * verification) is sealed (`identity_secret_sealed`, the communications config's box) and never returned
 * after it is issued. An account without a row has the defaults (no allowed origin: only the service's own).
 */
export const webChannelSettings = pgTable(
  'web_channel_settings',
  {
    id: idColumn(),
    entityId: entityIdColumn(),
    entityChannelAccountId: integer()
      .notNull()
      .references(() => entityChannelAccount.id, { onDelete: 'cascade' }),
    allowedOrigins: text().array().notNull().default([]),
    greetingText: text(),
    awayText: text(),
    prechatFields: jsonb().$type<PrechatFields>().notNull(),
    appearance: jsonb().$type<WidgetAppearance>().notNull(),
    businessHoursText: text(),
    identitySecretSealed: text(),
    identitySecretLast4: text(),
    ...timestampColumns(),
  },
  (t) => [uniqueIndex('web_channel_settings_account_uq').on(t.entityChannelAccountId), index('web_channel_settings_entity_id_idx').on(t.entityId)],
);

/**
 * A website visitor of one web account: its chat id (`external_chat_id` of its conversation: `v:<uuid>`, or
 * `u:<identifier>` once verified), what the pre-chat form gave, and the generation of its visitor token (a
 * resume issues generation + 1; older tokens stop working). Verified visitors on several devices share one row.
 */
export const webVisitor = pgTable(
  'web_visitor',
  {
    id: idColumn(),
    entityId: entityIdColumn(),
    entityChannelAccountId: integer()
      .notNull()
      .references(() => entityChannelAccount.id, { onDelete: 'cascade' }),
    externalChatId: text().notNull(),
    identifier: text(),
    name: text(),
    email: text(),
    phone: text(),
    tokenGeneration: integer().notNull().default(1),
    createdAt: timestampColumn(),
    lastSeenAt: timestampColumn(),
  },
  (t) => [uniqueIndex('web_visitor_account_chat_uq').on(t.entityChannelAccountId, t.externalChatId), index('web_visitor_entity_id_idx').on(t.entityId)],
);
