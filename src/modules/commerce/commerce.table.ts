import { bigint, boolean, date, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { idColumn, timestampColumn, timestampColumns } from '../../db/columns.js';
import { entityIdColumn } from '../identity/entity.table.js';
import { employee } from '../identity/employee.table.js';
import { lead } from '../records/lead.table.js';
import { contact } from '../records/contact.table.js';

export const QUOTE_STATUSES = ['draft', 'sent', 'approved', 'rejected', 'expired'] as const;
export type QuoteStatus = (typeof QUOTE_STATUSES)[number];
export const ERP_PUSH_STATUSES = ['pending', 'pushed', 'failed'] as const;
export const STATE_OUTCOMES = ['open', 'won', 'lost'] as const;

const minor = () => bigint({ mode: 'number' }).notNull();

/** Who a document is for and who sells it, and its amounts in minor units of its one currency (quote-totals.ts). */
const documentColumns = () => ({
  id: idColumn(),
  entityId: entityIdColumn(),
  leadId: integer()
    .notNull()
    .references(() => lead.id),
  contactId: integer().references(() => contact.id),
  sellerEmployeeId: integer()
    .notNull()
    .references(() => employee.id),
  currency: text().notNull(),
  notes: text().notNull().default(''),
  subtotalMinor: minor(),
  discountMinor: minor(),
  taxMinor: minor(),
  totalMinor: minor(),
  createdByEmployeeId: integer().references(() => employee.id),
  ...timestampColumns(),
});

/** One line of a quote or order: quantity in thousandths, rates in basis points, rounded amounts per line. */
const lineColumns = () => ({
  id: idColumn(),
  entityId: entityIdColumn(),
  position: integer().notNull(),
  productCode: text(),
  description: text().notNull(),
  quantityMilli: minor(),
  unitPriceMinor: minor(),
  discountBps: integer().notNull().default(0),
  taxRateBps: integer().notNull().default(0),
  grossMinor: minor(),
  discountMinor: minor(),
  taxMinor: minor(),
  totalMinor: minor(),
});

/** A quote: draft → sent → approved | rejected, or expired once `valid_until` has passed (quote-state.ts). */
export const commerceQuote = pgTable(
  'commerce_quote',
  {
    ...documentColumns(),
    status: text({ enum: QUOTE_STATUSES }).notNull().default('draft'),
    validUntil: date({ mode: 'string' }).notNull(),
    sentAt: timestamp({ withTimezone: true }),
    decidedAt: timestamp({ withTimezone: true }),
    decidedByEmployeeId: integer().references(() => employee.id),
  },
  (t) => [index('commerce_quote_entity_id_lead_id_idx').on(t.entityId, t.leadId, t.id)],
);

export const commerceQuoteLine = pgTable(
  'commerce_quote_line',
  {
    ...lineColumns(),
    quoteId: integer()
      .notNull()
      .references(() => commerceQuote.id, { onDelete: 'cascade' }),
  },
  (t) => [uniqueIndex('commerce_quote_line_quote_id_position_uq').on(t.quoteId, t.position)],
);

/**
 * An order, created directly or from an approved quote (at most one order per quote), and pushed to the
 * ERP with `erp_idempotency_key` so that a retried push never creates a second ERP order.
 */
export const commerceOrder = pgTable(
  'commerce_order',
  {
    ...documentColumns(),
    quoteId: integer().references(() => commerceQuote.id),
    erpIdempotencyKey: uuid().notNull().defaultRandom(),
    /** Whose ERP session pushes the order: the creator's `{ userId, clientKind }` in this entity. */
    erpScope: jsonb().notNull(),
    erpPushStatus: text({ enum: ERP_PUSH_STATUSES }).notNull().default('pending'),
    erpOrderNumber: text(),
    erpStatus: text(),
    erpError: jsonb(),
    erpPushedAt: timestamp({ withTimezone: true }),
  },
  (t) => [uniqueIndex('commerce_order_quote_id_uq').on(t.quoteId), index('commerce_order_entity_id_lead_id_idx').on(t.entityId, t.leadId, t.id)],
);

export const commerceOrderLine = pgTable(
  'commerce_order_line',
  {
    ...lineColumns(),
    orderId: integer()
      .notNull()
      .references(() => commerceOrder.id, { onDelete: 'cascade' }),
  },
  (t) => [uniqueIndex('commerce_order_line_order_id_position_uq').on(t.orderId, t.position)],
);

/** The entity's opportunity pipeline: ordered states; `won` and `lost` close an opportunity. */
export const commercePipelineState = pgTable(
  'commerce_pipeline_state',
  {
    id: idColumn(),
    entityId: entityIdColumn(),
    name: text().notNull(),
    position: integer().notNull(),
    outcome: text({ enum: STATE_OUTCOMES }).notNull().default('open'),
    archived: boolean().notNull().default(false),
    ...timestampColumns(),
  },
  (t) => [index('commerce_pipeline_state_entity_id_idx').on(t.entityId, t.position)],
);

/** An opportunity on a lead: its value, expected close date and current pipeline state. */
export const commerceOpportunity = pgTable(
  'commerce_opportunity',
  {
    id: idColumn(),
    entityId: entityIdColumn(),
    leadId: integer()
      .notNull()
      .references(() => lead.id),
    name: text().notNull(),
    stateId: integer()
      .notNull()
      .references(() => commercePipelineState.id),
    valueMinor: minor(),
    currency: text().notNull(),
    expectedCloseDate: date({ mode: 'string' }),
    ownerEmployeeId: integer().references(() => employee.id),
    ...timestampColumns(),
  },
  (t) => [index('commerce_opportunity_entity_id_lead_id_idx').on(t.entityId, t.leadId, t.id)],
);

/** Every move of an opportunity between states, with who and when (the first row is its creation). */
export const commerceOpportunityStateChange = pgTable(
  'commerce_opportunity_state_change',
  {
    id: idColumn(),
    entityId: entityIdColumn(),
    opportunityId: integer()
      .notNull()
      .references(() => commerceOpportunity.id),
    fromStateId: integer().references(() => commercePipelineState.id),
    toStateId: integer()
      .notNull()
      .references(() => commercePipelineState.id),
    changedByEmployeeId: integer().references(() => employee.id),
    changedAt: timestampColumn(),
  },
  (t) => [index('commerce_opportunity_state_change_opportunity_id_idx').on(t.opportunityId, t.id)],
);
