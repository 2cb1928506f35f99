import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { principalOf } from '../../platform/auth/guard.js';
import { erpAccessOf } from '../erp-session/index.js';
import { GroupParams, InvoiceDetailResponse, InvoiceListResponse, InvoicePageQuery, InvoiceParams } from './invoice.schemas.js';
import type { InvoiceService } from './invoice.service.js';

/** `/groups/:id/invoices*` (SPEC "CRM data"): permission groups.view, ERP-backed. */
export const invoiceRoutes: FastifyPluginAsyncTypebox<{ service: InvoiceService }> = async (app, { service }) => {
  // Another entity's (or no) group answers 404 before the ERP session is looked at.
  const groupFirst = async (request: FastifyRequest) => service.assertGroup(principalOf(request).entityId, (request.params as { id: number }).id);
  app.get(
    '/groups/:id/invoices',
    {
      config: { auth: 'groups.view', erpBacked: true, beforeErp: groupFirst },
      schema: {
        tags: ['invoices'],
        summary: "Invoices of the group's clients, one day per page",
        description: 'ERP-backed: 428 erp_session_required, 409 erp_entity_mismatch, 401 erp_session_invalid.',
        params: GroupParams,
        querystring: InvoicePageQuery,
        response: { 200: InvoiceListResponse },
      },
    },
    async (request) => service.listByDay(erpAccessOf(request), request.params.id, request.query.page),
  );
  app.get(
    '/groups/:id/invoices/:invoiceId',
    {
      config: { auth: 'groups.view', erpBacked: true, beforeErp: groupFirst },
      schema: { tags: ['invoices'], summary: 'Invoice detail with normalized lines', params: InvoiceParams, response: { 200: InvoiceDetailResponse } },
    },
    async (request) => service.detail(erpAccessOf(request), request.params.id, request.params.invoiceId),
  );
};
