/**
 * Child process of records.bench.ts: the production build (bench/built-service.ts) plus benchmark-only
 * "ceiling" routes registered here, never in the product. Each ceiling route is a bare authenticated route
 * (`auth: 'jwt'`: the same token check and per-request permission resolution as every route) that runs a
 * list route's own SQL (the same repository call, the same filters, the same page) and answers its rows,
 * which are the stored items' JSON texts, joined as they are: no service mapping, no response schema. A
 * list route is measured against its ceiling in the same run. `/readyz` answers once listening; SIGTERM
 * closes the server and the database.
 */
import { dist, serveBuilt } from './built-service.js';

type Dist<T> = Promise<T>;

// The built modules the ceilings call, typed as their sources.
const [{ principalOf }, leads, cartera] = await Promise.all([
  import(dist('platform/auth/guard.js')) as Dist<typeof import('../src/platform/auth/guard.js')>,
  import(dist('modules/records/lead.repository.js')) as Dist<typeof import('../src/modules/records/lead.repository.js')>,
  import(dist('modules/cartera/cartera.repository.js')) as Dist<typeof import('../src/modules/cartera/cartera.repository.js')>,
]);

/** The ceilings' body: the page's stored items as JSON text (the leads' and the cartera's alike), joined by the statement. */
const body = (page: { items: string | null }) => `{"data":[${page.items ?? ''}],"total":1000}`;

await serveBuilt((app, database) => {
  const page = { limit: 50, offset: 0 };
  const ceiling = { config: { auth: 'jwt' as const }, schema: { hide: true } };
  // The lists measured are over their count cap, so after their first page the routes run their page
  // statements without the count (src/db/paging.ts, `createCappedCounts`): the ceilings run the same.
  app.get('/bench/ceiling/leads', ceiling, async (request, reply) => {
    return reply.type('application/json').send(body(await leads.listLeads(database, principalOf(request).entityId, page, false)));
  });
  app.get<{ Querystring: { seller_id?: string } }>('/bench/ceiling/cartera', ceiling, async (request, reply) => {
    const sellerId = request.query.seller_id === undefined ? undefined : Number(request.query.seller_id);
    const view = await cartera.selectCartera(database, principalOf(request).entityId, { kind: 'lead', sellerId }, { ...page, sort: '-creation' }, false);
    return reply.type('application/json').send(body(view));
  });
});
