/**
 * Pushes an order to the ERP's REST API (`commerce.order.push` job, enqueued with the order): with the
 * creator's ERP session and the order's own idempotency key, so a push retried after a timeout — the
 * ERP may have created the order and lost the answer — gets the same ERP order back, never a second one.
 * Unavailable ERP (timeouts, 5xx, 429) is retried with backoff; no ERP session, refused credentials or a
 * refused order mark the push `failed` with its reason, as does the last attempt.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/client.js';
import type { UnitOfWork } from '../../platform/transactions/transaction.js';
import type { JobContext, Queue } from '../../platform/queue/queue.js';
import { isErpError, type ErpClient, type ErpCredentials } from '../../integrations/erp/index.js';
import type { ErpSessionScope } from '../erp-session/index.js';
import { fromMinor } from './money.js';
import * as repo from './order.repository.js';

const ORDER_PUSH_QUEUE = 'commerce.order.push';

declare module '../../platform/queue/queue.js' {
  interface JobMap {
    'commerce.order.push': { orderId: number };
  }
}

export interface OrderPushDeps {
  db: Db;
  queue: Queue;
  erp: Pick<ErpClient, 'createOrder'>;
  credentials(scope: ErpSessionScope): Promise<ErpCredentials | undefined>;
  clientIdOf(entityId: number, leadId: number): Promise<string | null>;
  log: FastifyBaseLogger;
}

export function createOrderPush(deps: OrderPushDeps) {
  async function push({ orderId }: { orderId: number }, job: JobContext): Promise<void> {
    const o = await repo.getOrder(deps.db, orderId);
    if (!o || o.erpPushStatus === 'pushed') return;
    const scope = { ...(o.erpScope as { userId: number; clientKind: string }), entityId: o.entityId };
    const creds = await deps.credentials(scope);
    if (!creds) return fail(o.id, { code: 'erp_session_missing', message: "The order's creator has no ERP session in this entity" });
    const pct = (bps: number) => (bps / 100).toFixed(2);
    try {
      const answer = await deps.erp.createOrder(creds, o.erpIdempotencyKey, {
        external_id: `crm-order-${o.id}`,
        client_id: await deps.clientIdOf(o.entityId, o.leadId),
        currency: o.currency,
        lines: o.lines.map((l) => ({
          code: l.productCode,
          description: l.description,
          quantity: (l.quantityMilli / 1000).toFixed(3),
          unit_price: fromMinor(l.unitPriceMinor, o.currency),
          discount_percent: pct(l.discountBps),
          tax_percent: pct(l.taxRateBps),
        })),
        total: fromMinor(o.totalMinor, o.currency),
      });
      await repo.recordPush(deps.db, o.id, {
        erpPushStatus: 'pushed',
        erpOrderNumber: answer.number,
        erpStatus: answer.status,
        erpError: null,
        erpPushedAt: new Date(),
      });
    } catch (err) {
      if (isErpError(err) && err.kind === 'unavailable' && job.attempt <= job.retryLimit) throw err; // retried with the same key
      if (isErpError(err)) return fail(o.id, { code: `erp_${err.kind}`, message: err.message, status: err.status ?? null });
      throw err;
    }
  }

  async function fail(orderId: number, error: Record<string, unknown>): Promise<void> {
    deps.log.warn({ orderId, error }, 'order push to the ERP failed');
    await repo.recordPush(deps.db, orderId, { erpPushStatus: 'failed', erpError: error });
  }

  return {
    /** Enqueues the push of `orderId` in `unit` (the order's own change). */
    queue: async (unit: UnitOfWork, orderId: number) =>
      void (await deps.queue.enqueue(unit, ORDER_PUSH_QUEUE, { orderId }, { singletonKey: `order:${orderId}` })),
    async start(workers: boolean): Promise<void> {
      await deps.queue.define(ORDER_PUSH_QUEUE, { retryLimit: 5, retryDelay: 2, retryBackoff: true, expireInSeconds: 120, policy: 'short' });
      if (workers) await deps.queue.work(ORDER_PUSH_QUEUE, push, { concurrency: 2, pollingIntervalSeconds: 1 });
    },
  };
}
