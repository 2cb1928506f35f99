import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.js';
import { registerBareAndApi } from '../../platform/http/dual-prefix.js';
import { groupRoutes } from './group.routes.js';
import { leadRoutes } from './lead.routes.js';
import { contactRoutes } from './contact.routes.js';
import { employeeRoutes } from './employee.routes.js';
import { createEmployeeService } from './employee.service.js';
import { assignmentRoutes } from './assignment.routes.js';
import { createGroupService } from './group.service.js';
import { createLeadService } from './lead.service.js';
import { createContactService } from './contact.service.js';
import { createAssignmentService } from './assignment.service.js';

/** Registers groups, leads, contacts, employees and assignments, bare and under `/api`. */
export async function registerRecordsModule(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const deps = { db: ctx.db, events: ctx.events };
  const groups = createGroupService(deps);
  const leads = createLeadService({ ...deps, database: ctx.database });
  const contacts = createContactService(deps);
  const assignments = createAssignmentService(deps);
  const plugin: FastifyPluginAsyncTypebox = async (scope) => {
    await scope.register(groupRoutes, { service: groups });
    await scope.register(leadRoutes, { service: leads });
    await scope.register(contactRoutes, { service: contacts });
    await scope.register(employeeRoutes, { service: createEmployeeService({ db: ctx.db }) });
    await scope.register(assignmentRoutes, { service: assignments });
  };
  await registerBareAndApi(app, plugin, {});
}
