/** `GET /employees`: the entity's employees (sellers), for assignment pickers. Any member may read it. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../platform/auth/guard.js';
import { pageOf } from '../../platform/http/pagination.js';
import { EmployeeListQuery, EmployeeResponse } from './employee.schemas.js';
import type { EmployeeService } from './employee.service.js';

export const employeeRoutes: FastifyPluginAsyncTypebox<{ service: EmployeeService }> = async (app, { service }) => {
  app.get(
    '/employees',
    {
      config: { auth: 'jwt' },
      schema: { tags: ['records'], summary: 'List employees (sellers)', querystring: EmployeeListQuery, response: { 200: pageOf(EmployeeResponse) } },
    },
    async (request) => service.list(principalOf(request), request.query),
  );
};
