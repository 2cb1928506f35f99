import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../platform/context.js';
import { registerBareAndApi } from '../../platform/http/dual-prefix.js';
import type { ErpModule } from '../erp-session/index.js';
import type { IdentityService } from '../identity/index.js';
import { listGroupClients } from '../records/index.js';
import { invoiceRoutes } from './invoice.routes.js';
import { createInvoiceService, type InvoiceService } from './invoice.service.js';

/** What other modules may ask of invoices (workflows: trigger fields). */
export interface InvoicesModule {
  /** See `InvoiceService.recentTotals`. */
  recentTotals: InvoiceService['recentTotals'];
}

/** Serves `/groups/:id/invoices*` bare and under `/api`; returns the module's face for other modules. */
export async function registerInvoicesModule(app: FastifyInstance, ctx: AppContext, erpModule: ErpModule, identity: IdentityService): Promise<InvoicesModule> {
  const service = createInvoiceService({
    sessions: erpModule.sessions,
    identity,
    groupClients: (entityId, groupId) => listGroupClients(ctx.db, entityId, groupId),
  });
  await registerBareAndApi(app, invoiceRoutes, { service });
  return { recentTotals: (entityId, groupId, days) => service.recentTotals(entityId, groupId, days) };
}
