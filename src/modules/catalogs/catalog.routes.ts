import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { scopeOf } from '../erp-session/index.js';
import { CurrencyList, DepartmentList, MunicipalityList, MunicipalityQuery, ProductList, ProductQuery } from './catalog.schemas.js';
import type { CatalogService } from './catalog.service.js';

/** Header telling where a catalog answer came from (docs/api/catalogs.md); `stale-*` values are stale data. */
const CACHE_HEADER = 'x-catalog-cache';

/** `/catalogs/*` (SPEC "CRM data used by the shared client layer"); any CRM token. */
export const catalogRoutes: FastifyPluginAsyncTypebox<{ service: CatalogService }> = async (app, { service }) => {
  const description = `Served from the ERP through a two-level cache; header ${CACHE_HEADER}: hit-memory, hit-database, miss, stale-while-revalidate or stale-if-error.`;
  app.get(
    '/catalogs/currencies',
    { config: { auth: 'jwt', erpErrors: true }, schema: { tags: ['catalogs'], summary: 'Currency catalog', description, response: { 200: CurrencyList } } },
    async (request, reply) => {
      const result = await service.currencies(scopeOf(request));
      return reply.header(CACHE_HEADER, result.outcome).send(result.body);
    },
  );
  app.get(
    '/catalogs/departments',
    {
      config: { auth: 'jwt', erpErrors: true },
      schema: { tags: ['catalogs'], summary: 'Department catalog (Guatemala)', description, response: { 200: DepartmentList } },
    },
    async (request, reply) => {
      const result = await service.departments(scopeOf(request));
      return reply.header(CACHE_HEADER, result.outcome).send(result.body);
    },
  );
  app.get(
    '/catalogs/municipalities',
    {
      config: { auth: 'jwt', erpErrors: true },
      schema: {
        tags: ['catalogs'],
        summary: 'Municipality catalog; optional department filter',
        description,
        querystring: MunicipalityQuery,
        response: { 200: MunicipalityList },
      },
    },
    async (request, reply) => {
      const result = await service.municipalities(scopeOf(request), request.query.department);
      return reply.header(CACHE_HEADER, result.outcome).send(result.body);
    },
  );
  app.get(
    '/catalogs/products',
    {
      config: { auth: 'catalog.view', erpErrors: true },
      schema: {
        tags: ['catalogs'],
        summary: "The entity's sales catalog: search, category, currency, paging",
        description,
        querystring: ProductQuery,
        response: { 200: ProductList },
      },
    },
    async (request, reply) => {
      const result = await service.products(scopeOf(request), request.query);
      return reply.header(CACHE_HEADER, result.outcome).send(result.body);
    },
  );
};
