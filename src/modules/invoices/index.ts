import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../platform/context.js';
import { registerBareAndApi } from '../../platform/http/dual-prefix.js';
import type { ErpModule } from '../erp-session/index.js';
import type { IdentityService } from '../identity/index.js';
import { listGroupClients } from '../records/index.js';
import { invoiceRoutes } from './invoice.routes.js';
import { createInvoiceService } from './invoice.service.js';

/** Serves `/groups/:id/invoices*` bare and under `/api`. */
export async function registerInvoicesModule(app: FastifyInstance, ctx: AppContext, erpModule: ErpModule, identity: IdentityService): Promise<void> {
  const service = createInvoiceService({ sessions: erpModule.sessions, identity, groupClients: (entityId, groupId) => listGroupClients(ctx.db, entityId, groupId) });
  await registerBareAndApi(app, invoiceRoutes, { service });
}
