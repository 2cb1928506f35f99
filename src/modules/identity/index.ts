/**
 * The identity core: entities, users, employees (memberships), roles and subscriptions. Other modules and
 * the platform use `IdentityService`; the CLI and the demo seed use the trusted `DirectoryService`.
 */
import type { FastifyInstance } from 'fastify';
import type { AuditTrail } from '../audit/index.js';
import type { AppContext } from '../../platform/context.js';
import { registerBareAndApi, registerRoutes } from '../../platform/http/dual-prefix.js';
import { roleRoutes } from './role.routes.js';
import { subscriptionRoutes } from './subscription.routes.js';
import { employeeRoutes } from './employee.routes.js';
import { createRoleService } from './role.service.js';
import { createSubscriptionService } from './subscription.service.js';
import { createEmployeeService } from './employee.service.js';

export { createIdentityService, type IdentityService, type MembershipChanges } from './identity.service.js';
export { createDirectoryService, type DirectoryService } from './directory.service.js';
export { principalAlong } from './principal.sql.js';
export { seedIdentityDemo, type IdentityDemo } from './demo.seed.js';

/** Registers `/api/roles`, `/api/subscriptions` and `/employees` (bare and under `/api`). */
export async function registerIdentityModule(app: FastifyInstance, ctx: AppContext, audit: AuditTrail): Promise<void> {
  await registerRoutes(app, roleRoutes, { prefix: '/api/roles', service: createRoleService({ db: ctx.db, audit }) });
  await registerRoutes(app, subscriptionRoutes, { prefix: '/api/subscriptions', service: createSubscriptionService({ db: ctx.db, audit }) });
  await registerBareAndApi(app, employeeRoutes, { service: createEmployeeService({ db: ctx.db }) });
}
