/**
 * The `erp.*` fields of the message.inbound and manual contexts (SPEC "Filter engine" examples):
 * `erp.recent_invoices.count` and `.total` of the contact's group, read from the invoices module through
 * a small in-process cache. The read is bounded: past `timeoutMs`, or on any ERP error, the fields are
 * absent (so `is_empty` holds) and the trigger goes on (docs/decisions.md "Workflow ERP fields").
 */
import type { FastifyBaseLogger } from 'fastify';
import { LRUCache } from 'lru-cache';
import type { InvoicesModule } from '../invoices/index.js';

/** "Recent" invoices: dated within the last 30 days, today included. */
const RECENT_INVOICE_DAYS = 30;

export interface ErpFields {
  recent_invoices: { count: number; total: number };
}

export interface ErpFieldsReader {
  /** The `erp` part of a context for a group of the entity; undefined when absent (no clients, no session, slow or failing ERP). */
  of(entityId: number, groupId: number | null | undefined): Promise<ErpFields | undefined>;
}

export function createErpFieldsReader(deps: {
  invoices: Pick<InvoicesModule, 'recentTotals'>;
  log: FastifyBaseLogger;
  /** Longest wait for the ERP, ms. */
  timeoutMs: number;
  /** How long an answer (also "absent" for a group without clients or session) is kept, ms. */
  ttlMs: number;
}): ErpFieldsReader {
  // Only answers are cached: a timeout or an error is asked again next time.
  const cache = new LRUCache<string, { value: ErpFields | null }>({ max: 5000, ttl: deps.ttlMs });
  return {
    async of(entityId, groupId) {
      if (groupId === null || groupId === undefined) return undefined;
      const key = `${entityId}:${groupId}`;
      const hit = cache.get(key);
      if (hit) return hit.value ?? undefined;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), deps.timeoutMs);
      });
      const read = deps.invoices.recentTotals(entityId, groupId, RECENT_INVOICE_DAYS).then(
        (totals) => {
          const value = totals ? { recent_invoices: totals } : null;
          cache.set(key, { value });
          return value;
        },
        (err: unknown) => {
          deps.log.warn({ err, entityId, groupId }, 'workflow ERP fields: recent invoices could not be read');
          return null;
        },
      );
      try {
        const result = await Promise.race([read, timeout]);
        if (result === 'timeout') {
          deps.log.warn({ entityId, groupId, timeoutMs: deps.timeoutMs }, 'workflow ERP fields: the ERP did not answer in time');
          return undefined;
        }
        return result ?? undefined;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
