import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.js';
import { registerBareAndApi } from '../../platform/http/dual-prefix.js';
import { createLeadService } from '../records/lead.service.js';
import { carteraRoutes } from './cartera.routes.js';
import { createCarteraService } from './cartera.service.js';

/** Registers `/cartera/*`, bare and under `/api`. */
export async function registerCarteraModule(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const service = createCarteraService({ database: ctx.database, leads: createLeadService({ db: ctx.db, events: ctx.events, database: ctx.database }) });
  const plugin: FastifyPluginAsyncTypebox = async (scope) => {
    await scope.register(carteraRoutes, { service, database: ctx.database });
  };
  await registerBareAndApi(app, plugin, {});
}
