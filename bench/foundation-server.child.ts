/**
 * Child process of foundation.bench.ts: the production build (bench/built-service.ts) plus two
 * benchmark-only routes registered here, never in the product: `/bench/hello` (no database) and
 * `/bench/select` (one raw primary-key SELECT through the driver, no authentication), the floors
 * `GET /api/permissions/me` is measured against. The SELECT is a named prepared statement, as the
 * principal's is, so the floor pays no parsing or planning that /me does not. `/readyz` answers once
 * listening; SIGTERM closes the server and the database.
 */
import { serveBuilt } from './built-service.js';

await serveBuilt((app, database) => {
  const floor = { config: { auth: 'none' as const }, schema: { hide: true } };
  app.get('/bench/hello', floor, async () => ({ hello: 'world' }));
  app.get('/bench/select', floor, async () => {
    const [row] = await database.preparedQuery('bench_select_user', 'select id, email, name from app_user where id = $1', [1]);
    return row;
  });
});
