import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../platform/context.js';
import { registerBareAndApi } from '../../platform/http/dual-prefix.js';
import type { ErpModule } from '../erp-session/index.js';
import { catalogRoutes } from './catalog.routes.js';
import { createCatalogService } from './catalog.service.js';
import { createTwoLevelCache } from './two-level-cache.js';

/** Serves `/catalogs/*` bare and under `/api`. */
export async function registerCatalogsModule(app: FastifyInstance, ctx: AppContext, erpModule: ErpModule): Promise<void> {
  const cache = createTwoLevelCache({ db: ctx.db, log: ctx.log, ttlMs: ctx.config.erp.catalogCacheTtlDays * 86_400_000 });
  await registerBareAndApi(app, catalogRoutes, { service: createCatalogService({ cache, sessions: erpModule.sessions }) });
}
