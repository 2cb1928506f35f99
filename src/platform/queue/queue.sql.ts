/**
 * Statements of queue.ts over pg-boss's own tables (schema `pgboss`, installed by pg-boss at start, not by
 * our migrations): the backlog and dead-letter readings and the spending of a job's retries. The schema
 * check (test/db/sql-statements.test.ts) installs pg-boss's schema before preparing them.
 */
import { statement } from '../../db/statement.js';
import { QUEUE_SCHEMA } from '../../db/migrate.js';

/** pg-boss's schema. */
export const SCHEMA = QUEUE_SCHEMA;

/** Jobs due and not started, per queue of `$1` (text array): count and the oldest one's wait in seconds. */
export const QUEUE_BACKLOG = statement(
  'queue_backlog',
  `select name, count(*)::int as n, extract(epoch from now() - min(start_after))::float8 as age from ${SCHEMA}.job
         where name = any($1::text[]) and state < 'active' and start_after <= now() group by name`,
);

/** Jobs waiting in each dead-letter queue of `$1` (text array). */
export const DEAD_LETTER_COUNTS = statement(
  'queue_dead_letter_counts',
  `select name, count(*)::int as n from ${SCHEMA}.job where name = any($1::text[]) and state < 'active' group by name`,
);

/** Spends the retries of active job `$2` of queue `$1`, so that pg-boss dead-letters it when it fails. */
export const SPEND_RETRIES = statement(
  'queue_spend_retries',
  `update ${SCHEMA}.job set retry_limit = retry_count where name = $1 and id = $2 and state = 'active'`,
);

/** The newest `$2` jobs waiting in the dead-letter queues `$1` (text array). */
export const DEAD_LETTERS = statement(
  'queue_dead_letters',
  `select id, name, data, output, created_on from ${SCHEMA}.job
         where name = any($1::text[]) and state < 'active' order by created_on desc, id limit $2`,
);
