/**
 * Closing the app waits for requests still being handled, including those whose client already
 * disconnected, so their work reaches the database before the caller closes it.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { createTestApp, type TestContext } from '../helpers/test-app.js';
import { makeEntity, makeMember } from '../helpers/factories.js';
import { erpEnv, erpUserFor, linkEntity, loginWithErp, startTestErp } from '../helpers/erp.js';
import type { ErpSimulator } from '../../sim/erp/server.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db.js';

let sim: ErpSimulator;
let testDb: TestDatabase;

beforeAll(async () => {
  sim = await startTestErp();
  testDb = await createTestDatabase();
});
afterAll(async () => {
  await testDb.close();
  await sim.close();
});

async function storedCatalogKeys(t: TestContext): Promise<string[]> {
  const result = await t.database.executeSql('select key from external_catalog_caches order by key', []);
  return (result.rows as { key: string }[]).map((r) => r.key);
}

describe('app.close() with requests in flight', () => {
  it('waits for the handler of a request whose client disconnected, so its database write lands before close resolves', async () => {
    const t = await createTestApp({ env: erpEnv(sim), testDb });
    const entity = await makeEntity(t.database.db, 'Alpha');
    await linkEntity(t.database.db, sim, entity.id, 801);
    const m = await makeMember(t.database.db, { entityId: entity.id });
    erpUserFor(sim, m, [801]);
    const { token } = await loginWithErp(t.app, { email: m.email, password: m.password, entityId: entity.id });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.app.server.address() as AddressInfo;

    // A catalog miss asks the ERP (slow here), then stores the catalog in the database. The client leaves
    // while the ERP is still answering.
    sim.controls.latencyMs = 300;
    const graphqlCalls = () => sim.controls.counts['http:POST /graphql'] ?? 0;
    const before = graphqlCalls();
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => {});
    socket.write(`GET /catalogs/departments HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${token}\r\n\r\n`);
    await vi.waitFor(() => expect(graphqlCalls()).toBeGreaterThan(before));
    socket.destroy();

    await t.app.close();
    expect(await storedCatalogKeys(t)).toContain('departments');
  });

  it('closes at once when nothing is in flight', async () => {
    const t = await createTestApp({ env: erpEnv(sim), testDb });
    await t.app.inject({ method: 'GET', url: '/healthz' });
    const started = performance.now();
    await t.app.close();
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
