import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { bearer } from '../../helpers/factories.js';
import { erpEnv, loginWithErp } from '../../helpers/erp.js';
import { startErpSimulator, type ErpSimulator } from '../../../sim/erp/server.js';
import { seedDemo, type DemoSummary } from '../../../src/bootstrap/demo-seed.js';

let sim: ErpSimulator;
let t: TestContext;
let demo: DemoSummary;

beforeAll(async () => {
  sim = await startErpSimulator();
  t = await createTestApp({ env: erpEnv(sim) });
  demo = await seedDemo(t.database.db);
  await seedDemo(t.database.db);
});
afterAll(async () => {
  await t.close();
  await sim.close();
});

describe('demo data with the demo ERP simulator', () => {
  it('gives the demo admin a ready ERP session and invoices for the demo group', async () => {
    const r = await loginWithErp(t.app, { email: 'admin@example.com', password: 'admin123', entityId: 1 });
    expect(r.status).toBe(200);
    expect(r.erpSession).toMatchObject({
      status: 'ready',
      selected_entity_id: 1,
      selected_entity_name: 'Demo Company',
      erp_user_id: 1001,
      erp_employee_id: 2001,
    });
    const group = demo.invoices.groups.find((g) => g.entityId === 1)!;
    const page = await t.app.inject({ method: 'GET', url: `/groups/${group.groupId}/invoices`, headers: bearer(r.token) });
    expect(page.statusCode).toBe(200);
    expect(page.json().data.length).toBeGreaterThan(0);
    expect(page.json().pagination.totalPages).toBe(3);
    const currencies = await t.app.inject({ method: 'GET', url: '/catalogs/currencies', headers: bearer(r.token) });
    expect(currencies.statusCode).toBe(200);
  });

  it('lets the demo seller read the demo group invoices (groups.view)', async () => {
    const r = await loginWithErp(t.app, { email: 'seller@example.com', password: 'seller123', entityId: 1 });
    expect(r.erpSession.status).toBe('ready');
    const group = demo.invoices.groups.find((g) => g.entityId === 1)!;
    const detail = await t.app.inject({ method: 'GET', url: `/groups/${group.groupId}/invoices/9001`, headers: bearer(r.token) });
    expect(detail.statusCode).toBe(200);
    expect(detail.json().data.lines.map((l: { lineKind: string }) => l.lineKind)).toEqual(['item', 'bundle']);
  });

  it('shows the admin an entity mismatch in entity 2 while the ERP has entity 1 selected', async () => {
    const r = await loginWithErp(t.app, { email: 'admin@example.com', password: 'admin123', entityId: 2 });
    expect(r.erpSession).toMatchObject({ status: 'entity_mismatch', selected_entity_id: 1 });
  });
});
