/**
 * The durable job queue: pg-boss on the service's own database (PostgreSQL, or PGlite through the
 * `executeSql` adapter). Job payloads carry ids only; handlers re-read state and are idempotent.
 */
import PgBoss from 'pg-boss';
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../db/client.js';

export type { PgBoss };

export interface QueueDefinition {
  /** Attempts after the first failure. */
  retryLimit?: number;
  /** Seconds before the first retry; doubled per attempt when `retryBackoff`. */
  retryDelay?: number;
  retryBackoff?: boolean;
  /** Queue that receives jobs that exhausted their retries. */
  deadLetter?: string;
}

export interface Queue {
  readonly boss: PgBoss;
  start(): Promise<void>;
  /** Waits for active jobs up to `timeoutMs`, then stops polling. */
  stop(timeoutMs?: number): Promise<void>;
  /** Creates `name` (and its dead-letter queue) if missing. */
  define(name: string, definition?: QueueDefinition): Promise<void>;
}

export function createQueue(database: Database, log: FastifyBaseLogger): Queue {
  const boss = new PgBoss({
    db: { executeSql: (text, values) => database.executeSql(text, values) },
    schema: 'pgboss',
    // Remember completed jobs long enough for operators to inspect them; webhook dedup lives in the inbox.
    archiveCompletedAfterSeconds: 3600,
  });
  boss.on('error', (err) => log.error({ err }, 'job queue error'));
  let started = false;
  return {
    boss,
    async start() {
      if (started) return;
      await boss.start();
      started = true;
    },
    async stop(timeoutMs = 10_000) {
      if (!started) return;
      started = false;
      await boss.stop({ graceful: true, wait: true, timeout: timeoutMs, close: false });
    },
    async define(name, definition = {}) {
      if (definition.deadLetter !== undefined) await boss.createQueue(definition.deadLetter);
      await boss.createQueue(name, {
        name,
        retryLimit: definition.retryLimit ?? 5,
        retryDelay: definition.retryDelay ?? 2,
        retryBackoff: definition.retryBackoff ?? true,
        ...(definition.deadLetter !== undefined ? { deadLetter: definition.deadLetter } : {}),
      });
    },
  };
}
