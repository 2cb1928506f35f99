import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../platform/context.js';
import { registerBareAndApi } from '../../platform/http/dual-prefix.js';
import type { ErpModule } from '../erp-session/index.js';
import { catalogRoutes } from './catalog.routes.js';
import { createCatalogService, type CatalogService } from './catalog.service.js';

export type { CatalogService } from './catalog.service.js';
export { ProductList, ProductQuery, type Product } from './catalog.schemas.js';
import { createTwoLevelCache } from './two-level-cache.js';

/** Serves `/catalogs/*` bare and under `/api`; returns the service (the sales catalog for commerce). */
export async function registerCatalogsModule(app: FastifyInstance, ctx: AppContext, erpModule: ErpModule): Promise<CatalogService> {
  const cache = createTwoLevelCache({ db: ctx.db, log: ctx.log, ttlMs: ctx.config.erp.catalogCacheTtlDays * 86_400_000 });
  const service = createCatalogService({ cache, sessions: erpModule.sessions });
  await registerBareAndApi(app, catalogRoutes, { service });
  return service;
}
