/**
 * The audit trail (issue 54): an append-only, hash-chained log of who did what (docs/privacy.md). Every module
 * that owns an audited action calls `AuditTrail.record` in the action's transaction; this module calls no other.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../platform/context.js';
import { registerBareAndApi } from '../../platform/http/dual-prefix.js';
import { auditRoutes } from './audit.routes.js';
import type { AuditService } from './audit.service.js';

export type { AuditTrail } from './audit.service.js';
export { actorOf, createAuditService } from './audit.service.js';

const PRUNE_QUEUE = 'audit.prune';

declare module '../../platform/queue/queue.js' {
  interface JobMap {
    [PRUNE_QUEUE]: Record<string, never>;
  }
}

/** Registers `/audit` bare and under `/api` and the daily retention job; returns the trail for the other modules. */
export async function registerAuditModule(app: FastifyInstance, ctx: AppContext, audit: AuditService, options: { workers: boolean }): Promise<void> {
  await registerBareAndApi(app, auditRoutes, { audit });
  await ctx.queue.define(PRUNE_QUEUE, { retryLimit: 3, retryDelay: 60, expireInSeconds: 3600, policy: 'short' });
  if (options.workers) {
    await ctx.queue.work(PRUNE_QUEUE, async () => {
      const removed = await audit.prune(new Date());
      if (removed > 0) ctx.log.info({ removed }, 'audit entries past their retention removed');
    });
    await ctx.queue.schedule(PRUNE_QUEUE, '17 3 * * *', {}, { tz: 'UTC' });
  }
}
