import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AuditTrail } from '../audit/index.js';
import type { AppContext } from '../../platform/context.js';
import { registerBareAndApi, registerRoutes } from '../../platform/http/dual-prefix.js';
import type { RecordsModule } from '../records/index.js';
import { carteraRoutes } from './cartera.routes.js';
import { createCarteraService } from './cartera.service.js';

export { rebuildCarteraItems } from './cartera.repository.js';

/** Registers `/cartera/*`, bare and under `/api`; lead edits go through the records module's lead service. */
export async function registerCarteraModule(app: FastifyInstance, ctx: AppContext, records: RecordsModule, audit: AuditTrail): Promise<void> {
  const service = createCarteraService({ database: ctx.database, leads: records.leads, audit, db: ctx.db });
  const plugin: FastifyPluginAsyncTypebox = async (scope) => {
    await registerRoutes(scope, carteraRoutes, { service, database: ctx.database });
  };
  await registerBareAndApi(app, plugin, {});
}
