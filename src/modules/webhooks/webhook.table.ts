import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { idColumn, timestampColumn, timestampColumns } from '../../db/columns.js';
import { entityIdColumn } from '../identity/entity.table.js';

/**
 * An entity's outbound webhook endpoint (issue 53): an https URL, the domain event types it wants, and its
 * Standard Webhooks secret (`whsec_` + base64). After a rotation the previous secret keeps signing (a second
 * `v1,` signature) until `previous_secret_expires_at`. `failing_since` is the first failure of the current run of
 * failures (null after a success); five days of it disable the endpoint (`disabled_reason`).
 */
export const webhookEndpoint = pgTable(
  'webhook_endpoint',
  {
    id: idColumn(),
    entityId: entityIdColumn(),
    url: text().notNull(),
    description: text(),
    eventTypes: text().array().notNull(),
    secret: text().notNull(),
    previousSecret: text(),
    previousSecretExpiresAt: timestamp({ withTimezone: true }),
    enabled: boolean().notNull().default(true),
    disabledReason: text(),
    failingSince: timestamp({ withTimezone: true }),
    ...timestampColumns(),
  },
  (t) => [index('webhook_endpoint_entity_id_idx').on(t.entityId)],
);

/**
 * One event for one endpoint: `id` is the `webhook-id` sent on every attempt (`msg_` + hex), derived from the
 * event's durable job and the endpoint so that fanning out twice writes it once. `payload` is the exact body.
 * `status`: `pending` (an attempt is due at `next_attempt_at`), `succeeded`, `failed` (gave up: 3 days, 410, the
 * endpoint disabled or removed).
 */
export const webhookDelivery = pgTable(
  'webhook_delivery',
  {
    id: text().primaryKey(),
    entityId: entityIdColumn(),
    endpointId: integer()
      .notNull()
      .references(() => webhookEndpoint.id, { onDelete: 'cascade' }),
    eventType: text().notNull(),
    payload: jsonb().notNull(),
    status: text().notNull().default('pending'),
    attempts: integer().notNull().default(0),
    nextAttemptAt: timestamp({ withTimezone: true }),
    lastStatus: integer(),
    lastError: text(),
    /** Committed with the event: the delivery latency is measured from here. */
    createdAt: timestampColumn(),
    /** Retries stop 3 days after this (a replay restarts it). */
    retryFrom: timestampColumn(),
    deliveredAt: timestamp({ withTimezone: true }),
  },
  (t) => [index('webhook_delivery_endpoint_id_created_at_idx').on(t.endpointId, sql`${t.createdAt} desc`)],
);

/** Every attempt of a delivery: when, the answer's status (null: none), latency, the first bytes of the answer. */
export const webhookAttempt = pgTable(
  'webhook_attempt',
  {
    id: idColumn(),
    deliveryId: text()
      .notNull()
      .references(() => webhookDelivery.id, { onDelete: 'cascade' }),
    attemptedAt: timestampColumn(),
    status: integer(),
    latencyMs: integer().notNull(),
    responseExcerpt: text(),
    error: text(),
  },
  (t) => [uniqueIndex('webhook_attempt_delivery_id_id_uq').on(t.deliveryId, t.id)],
);
