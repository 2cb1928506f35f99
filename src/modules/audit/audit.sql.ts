/** Hand-written statements over the audit trail's tables (issue 54). */
import { statement } from '../../db/statement.js';

/**
 * The breaks of the chains (all, or the chain `$1`): `altered` when an entry's hash is not the hash of its
 * fields, `missing` when the entry does not follow the one before it (a gap in `seq` or a `prev_hash` that is not
 * the previous hash, the first kept entry checked against the head's `first_*`), `missing_tail` when the head
 * counts more entries than the chain holds. At most 1,000 rows, by chain and position.
 */
export const chainBreaks = statement(
  'audit_chain_breaks',
  `WITH c AS (
     SELECT e.chain_key, e.seq, e.id, e.hash, e.prev_hash, audit_entry_hash(e) AS computed,
            lag(e.seq) OVER w AS before_seq, lag(e.hash) OVER w AS before_hash
       FROM audit_entry e
      WHERE $1::integer IS NULL OR e.chain_key = $1::integer
     WINDOW w AS (PARTITION BY e.chain_key ORDER BY e.seq)
   ), breaks AS (
     SELECT c.chain_key, c.seq, c.id,
            CASE
              WHEN c.computed <> c.hash THEN 'altered'
              WHEN c.before_seq IS NULL AND (c.seq <> h.first_seq OR c.prev_hash <> h.first_prev_hash) THEN 'missing'
              WHEN c.before_seq IS NOT NULL AND (c.seq <> c.before_seq + 1 OR c.prev_hash <> c.before_hash) THEN 'missing'
            END AS problem
       FROM c JOIN audit_chain_head h ON h.chain_key = c.chain_key
     UNION ALL
     SELECT h.chain_key, h.seq, NULL::bigint, 'missing_tail'
       FROM audit_chain_head h
      WHERE ($1::integer IS NULL OR h.chain_key = $1::integer)
        AND h.seq <> coalesce((SELECT max(e.seq) FROM audit_entry e WHERE e.chain_key = h.chain_key), h.first_seq - 1)
   )
   SELECT chain_key, seq, id, problem FROM breaks WHERE problem IS NOT NULL ORDER BY chain_key, seq LIMIT 1000`,
);

/** Entries checked by verify (of all chains, or of the chain `$1`). */
export const countEntries = statement(
  'audit_count_entries',
  `SELECT count(*)::bigint AS n FROM audit_entry WHERE $1::integer IS NULL OR chain_key = $1::integer`,
);

/** Prunes the chain `$1` up to the last entry before `$2` (the migration's `audit_prune`); answers how many went. */
export const pruneChain = statement('audit_prune_chain', `SELECT audit_prune($1::integer, $2::timestamptz) AS removed`);

/** Every chain with its retention in days (`$1`, the default, when the entity set none). */
export const chainsWithRetention = statement(
  'audit_chains_with_retention',
  `SELECT h.chain_key, coalesce(r.days, $1::integer) AS days
     FROM audit_chain_head h LEFT JOIN audit_retention r ON r.entity_id = h.chain_key`,
);
