import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../platform/context.js';
import { permissionRoutes } from './permission.routes.js';

export { seedPermissionCatalog } from './permission.repository.js';
import { createPermissionService } from './permission.service.js';
import { registerRoutes } from '../../platform/http/dual-prefix.js';

export async function registerPermissionsModule(app: FastifyInstance, ctx: AppContext): Promise<void> {
  await registerRoutes(app, permissionRoutes, { prefix: '/api/permissions', service: createPermissionService({ db: ctx.db }) });
}
