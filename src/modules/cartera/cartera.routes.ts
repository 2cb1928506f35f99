import type { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { pendingPrincipalOf, principalOf } from '../../platform/auth/guard.js';
import type { PreparedRunner } from '../../db/prepared-sql.js';
import { IdParams } from '../../platform/http/ids.js';
import { sendJsonText } from '../../platform/http/json-text.js';
import {
  CarteraClientDetail,
  CarteraClientList,
  CarteraDetailPatch,
  CarteraExportQuery,
  CarteraLeadDetail,
  CarteraLeadList,
  CarteraListQuery,
} from './cartera.schemas.js';
import { filterOf, type CarteraService } from './cartera.service.js';
import { streamCarteraXlsx } from './cartera.export.js';

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const Spreadsheet = Type.Unsafe<Readable>({ type: 'string', format: 'binary', description: 'The spreadsheet' });

/** `/cartera/*` (codes cartera.*). */
export const carteraRoutes: FastifyPluginAsyncTypebox<{ service: CarteraService; database: PreparedRunner }> = async (app, { service, database }) => {
  const tags = ['cartera'];
  app.get(
    '/cartera/leads',
    {
      config: { auth: 'cartera.leads_list.view', membershipReadAlong: true },
      schema: { tags, summary: 'Portfolio of leads', querystring: CarteraListQuery, response: { 200: CarteraLeadList } },
    },
    async (request, reply) => sendJsonText(reply, await service.list(pendingPrincipalOf(request), 'lead', request.query)),
  );
  app.get(
    '/cartera/clients',
    {
      config: { auth: 'cartera.clients_list.view', membershipReadAlong: true },
      schema: { tags, summary: 'Portfolio of clients', querystring: CarteraListQuery, response: { 200: CarteraClientList } },
    },
    async (request, reply) => sendJsonText(reply, await service.list(pendingPrincipalOf(request), 'client', request.query)),
  );
  app.get(
    '/cartera/leads/:id',
    { config: { auth: 'cartera.lead_detail.view' }, schema: { tags, summary: 'Lead detail', params: IdParams, response: { 200: CarteraLeadDetail } } },
    async (request) => service.detail(principalOf(request), 'lead', request.params.id),
  );
  app.get(
    '/cartera/clients/:id',
    { config: { auth: 'cartera.client_detail.view' }, schema: { tags, summary: 'Client detail', params: IdParams, response: { 200: CarteraClientDetail } } },
    async (request) => service.detail(principalOf(request), 'client', request.params.id),
  );
  app.patch(
    '/cartera/leads/:id',
    {
      config: { auth: 'cartera.lead_detail.edit' },
      schema: { tags, summary: 'Edit lead detail', params: IdParams, body: CarteraDetailPatch, response: { 200: CarteraLeadDetail } },
    },
    async (request) => service.update(principalOf(request), 'lead', request.params.id, request.body),
  );
  app.patch(
    '/cartera/clients/:id',
    {
      config: { auth: 'cartera.client_detail.edit' },
      schema: { tags, summary: 'Edit client detail', params: IdParams, body: CarteraDetailPatch, response: { 200: CarteraClientDetail } },
    },
    async (request) => service.update(principalOf(request), 'client', request.params.id, request.body),
  );
  app.get(
    '/cartera/export.xlsx',
    {
      config: { auth: 'cartera.export_excel' },
      schema: {
        tags,
        summary: 'Export the filtered portfolio as a spreadsheet (streamed)',
        querystring: CarteraExportQuery,
        produces: [XLSX],
        response: { 200: { description: 'The spreadsheet', content: { [XLSX]: { schema: Spreadsheet } } } },
      },
    },
    async (request, reply) => {
      const caller = principalOf(request);
      const { kind, ...filters } = request.query;
      await service.exporting(caller, kind, filters);
      const stream = streamCarteraXlsx(database, caller.entityId, filterOf(request.query.kind, request.query), request.log);
      return reply.type(XLSX).header('content-disposition', `attachment; filename="cartera-${request.query.kind}s.xlsx"`).send(stream);
    },
  );
};
