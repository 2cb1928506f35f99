import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../platform/context.js';
import { roleRoutes } from './role.routes.js';
import { subscriptionRoutes } from './subscription.routes.js';
import { createRoleService } from './role.service.js';
import { createSubscriptionService } from './subscription.service.js';

/** Registers `/api/roles` and `/api/subscriptions`. */
export async function registerAdminModule(app: FastifyInstance, ctx: AppContext): Promise<void> {
  await app.register(roleRoutes, { prefix: '/api/roles', service: createRoleService({ db: ctx.db }) });
  await app.register(subscriptionRoutes, { prefix: '/api/subscriptions', service: createSubscriptionService({ db: ctx.db }) });
}
