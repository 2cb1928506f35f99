import { sql } from 'drizzle-orm';
import { bigint, check, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { entity } from '../identity/entity.table.js';

/**
 * The audit trail (issue 54): one row per audited action, append-only. Each entity's rows form a hash chain
 * (`chain_key` is the entity's id, 0 for actions outside any entity such as a failed login): `seq` counts from
 * 1 without gaps and `hash` is sha256 over the previous entry's hash and this entry's fields, both set by the
 * trigger `audit_entry_chain` (migration 0034) under a row lock of the chain's head, so appends to one chain are
 * serialised and the application only inserts. Triggers refuse every UPDATE and every DELETE except through
 * `audit_prune(chain_key, before)`, the retention job's path (docs/privacy.md, "The audit trail").
 * No foreign key to users or employees: an entry outlives them.
 */
export const auditEntry = pgTable(
  'audit_entry',
  {
    id: bigint({ mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    /** The chain: the entity's id, 0 outside any entity. */
    chainKey: integer().notNull(),
    /** Position in the chain, from 1; set by the trigger. */
    seq: bigint({ mode: 'number' }).notNull().default(0),
    entityId: integer().references(() => entity.id),
    occurredAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    /** `user`, `api_key`, `workflow` or `system`. */
    actorKind: text().notNull(),
    actorUserId: integer(),
    actorEmployeeId: integer(),
    /** The API key's or workflow's id when the actor is one. */
    actorRef: integer(),
    /** Dotted verb: `auth.login`, `role.update`, `contact.erase`, ... (docs/api/audit.md). */
    action: text().notNull(),
    targetType: text(),
    targetId: text(),
    /** `{ before, after }` of the fields changed, secrets redacted; or facts of the action (counts, format). */
    diff: jsonb(),
    clientAddress: text(),
    requestId: text(),
    /** Hash of the previous entry of the chain (`''` for the first); set by the trigger. */
    prevHash: text().notNull().default(''),
    hash: text().notNull().default(''),
  },
  (t) => [
    uniqueIndex('audit_entry_chain_seq_uq').on(t.chainKey, t.seq),
    index('audit_entry_entity_time_idx').on(t.entityId, t.occurredAt),
    check('audit_entry_actor_kind_ck', sql`${t.actorKind} in ('user', 'api_key', 'workflow', 'system')`),
  ],
);

/** The head of each chain: its last `seq` and `hash`, locked by each append (the trigger keeps it). */
export const auditChainHead = pgTable('audit_chain_head', {
  chainKey: integer().primaryKey(),
  seq: bigint({ mode: 'number' }).notNull(),
  hash: text().notNull(),
  /** The first `seq` still held: entries before it were pruned by retention (verify starts there). */
  firstSeq: bigint({ mode: 'number' }).notNull().default(1),
  /** The hash the first held entry carries as `prev_hash` (the pruned entry's hash). */
  firstPrevHash: text().notNull().default(''),
});

/** How long an entity keeps its audit trail (default 730 days when it has no row). */
export const auditRetention = pgTable('audit_retention', {
  entityId: integer()
    .primaryKey()
    .references(() => entity.id),
  days: integer().notNull(),
});
