/**
 * Child process of records.bench.ts: the production build (bench/built-service.ts) plus benchmark-only
 * "ceiling" routes registered here, never in the product. Each ceiling route is a bare authenticated route
 * (`auth: 'jwt'`, with the caller's membership read along as the list routes read it: the same token check
 * and per-request permission resolution) that runs a list route's own SQL (the same repository call, the
 * same filters, the same page) and answers its rows,
 * which are the stored items' JSON texts, joined as they are: no service mapping, no response schema. A
 * list route is measured against its ceiling in the same run. `/readyz` answers once listening; SIGTERM
 * closes the server and the database.
 */
import { dist, serveBuilt } from './built-service.js';

type Dist<T> = Promise<T>;

// The built modules the ceilings call, typed as their sources.
const [{ pendingPrincipalOf }, leads, cartera] = await Promise.all([
  import(dist('platform/auth/guard.js')) as Dist<typeof import('../src/platform/auth/guard.js')>,
  import(dist('modules/records/lead.repository.js')) as Dist<typeof import('../src/modules/records/lead.repository.js')>,
  import(dist('modules/cartera/cartera.repository.js')) as Dist<typeof import('../src/modules/cartera/cartera.repository.js')>,
]);

/** The ceilings' body: the page's stored items as JSON text (the leads' and the cartera's alike), joined by the statement. */
const body = (page: { items: string | null }) => `{"data":[${page.items ?? ''}],"total":1000}`;

await serveBuilt((app, database) => {
  const page = { limit: 50, offset: 0 };
  const ceiling = { config: { auth: 'jwt' as const, membershipReadAlong: true }, schema: { hide: true } };
  // The lists measured are over their count cap, so after their first page the routes run their page
  // statements without the count (src/db/paging.ts, `createCappedCounts`): the ceilings run the same.
  app.get('/bench/ceiling/leads', ceiling, async (request, reply) => {
    const caller = pendingPrincipalOf(request);
    const read = await leads.listLeads(database, caller, page, false);
    await caller.confirm(read.principal ?? null);
    return reply.type('application/json').send(body(read));
  });
  app.get<{ Querystring: { seller_id?: string } }>('/bench/ceiling/cartera', ceiling, async (request, reply) => {
    const sellerId = request.query.seller_id === undefined ? undefined : Number(request.query.seller_id);
    const caller = pendingPrincipalOf(request);
    const view = await cartera.selectCartera(database, caller, { kind: 'lead', sellerId }, { ...page, sort: '-creation' }, false);
    await caller.confirm(view.principal ?? null);
    return reply.type('application/json').send(body(view));
  });
});
