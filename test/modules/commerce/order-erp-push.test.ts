/**
 * Orders pushed to the ERP simulator over HTTP: the ERP creates the order and its answer is lost (the
 * client times out); the retried push carries the same Idempotency-Key and gets the same ERP order back —
 * one ERP order, never two. A creator without an ERP session fails the push with its reason; after they
 * log in with the ERP, pushing again succeeds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { bearer, makeEntity, makeMember, tokenFor } from '../../helpers/factories.js';
import { makeLead } from '../../helpers/records-factories.js';
import { waitFor } from '../../helpers/interactions.js';
import { erpEnv, erpUserFor, linkEntity, loginWithErp, startTestErp } from '../../helpers/erp.js';
import type { ErpSimulator } from '../../../sim/erp/server.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are asserted field by field
type Row = Record<string, any>;
let t: TestContext;
let sim: ErpSimulator;
let entityId: number;
let leadId: number;

beforeAll(async () => {
  sim = await startTestErp();
  t = await createTestApp({ env: erpEnv(sim), startQueue: true });
  entityId = (await makeEntity(t.database.db, 'Ventas ERP')).id;
  await linkEntity(t.database.db, sim, entityId, 501);
  leadId = (await makeLead(t.database.db, { entityId, erpId: 'C-100' })).id;
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

const order = (token: string) =>
  t.app.inject({
    method: 'POST',
    url: '/orders',
    headers: bearer(token),
    payload: {
      lead_id: leadId,
      currency: 'GTQ',
      lines: [{ product_code: 'P-9', description: 'Licencia', quantity: '2', unit_price: '150.00', tax_percent: '12' }],
    },
  });
const pushed = (token: string, id: number) =>
  waitFor(async () => {
    const o = (await t.app.inject({ method: 'GET', url: `/orders/${id}`, headers: bearer(token) })).json<Row>();
    return o.erp.push_status !== 'pending' ? o : undefined;
  }, 20_000);

describe('ERP push', () => {
  it('creates one ERP order although the first answer was lost to a timeout', async () => {
    const member = await makeMember(t.database.db, { entityId, codes: ['orders.create'] });
    erpUserFor(sim, member, [501]);
    const login = await loginWithErp(t.app, { email: member.email, password: member.password, entityId });
    expect(login.status, JSON.stringify(login.body)).toBe(200);
    const writesBefore = sim.controls.counts.write ?? 0;
    sim.controls.hangAfterWrite = 1;
    const res = await order(login.token);
    expect(res.statusCode, res.body).toBe(201);
    const done = await pushed(login.token, res.json<Row>().id as number);
    expect(done.erp).toMatchObject({ push_status: 'pushed', order_number: expect.stringMatching(/^PED-/), status: 'registered', error: null });
    expect((sim.controls.counts.write ?? 0) - writesBefore).toBe(2); // the lost answer and the replay
    const created = [...sim.controls.orders.values()].filter((o) => (o.body as Row).external_id === `crm-order-${done.id}`);
    expect(created).toHaveLength(1);
    expect(created[0]!.body).toMatchObject({
      client_id: 'C-100',
      currency: 'GTQ',
      total: '336.00',
      lines: [{ code: 'P-9', quantity: '2.000', unit_price: '150.00', tax_percent: '12.00' }],
    });
    const again = await t.app.inject({ method: 'POST', url: `/orders/${done.id}/erp-push`, headers: bearer(login.token) });
    expect(again.json()).toMatchObject({ status: 409, code: 'order_pushed' });
  }, 40_000);

  it('fails the push without an ERP session, and succeeds once the creator has one', async () => {
    const member = await makeMember(t.database.db, { entityId, codes: ['orders.create'] });
    const token = await tokenFor(t.app, member);
    const res = await order(token);
    const failed = await pushed(token, res.json<Row>().id as number);
    expect(failed.erp).toMatchObject({ push_status: 'failed', error: { code: 'erp_session_missing' } });
    erpUserFor(sim, member, [501]);
    const login = await loginWithErp(t.app, { email: member.email, password: member.password, entityId });
    expect(login.status).toBe(200);
    const retried = await t.app.inject({ method: 'POST', url: `/orders/${failed.id}/erp-push`, headers: bearer(login.token) });
    expect(retried.json()).toMatchObject({ erp: { push_status: 'pending' } });
    expect((await pushed(login.token, failed.id as number)).erp.push_status).toBe('pushed');
  }, 40_000);
});
