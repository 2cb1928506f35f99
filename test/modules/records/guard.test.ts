import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { bearer, makeEntity, makeMember, tokenFor } from '../../helpers/factories.js';

let t: TestContext;
let noCodes: string;

type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
/** Every guarded route of records, custom fields and cartera with the code it requires. */
const ROUTES: [Method, string, string][] = [
  ['GET', '/groups', 'groups.view'],
  ['GET', '/groups/1', 'groups.view'],
  ['POST', '/groups', 'groups.create'],
  ['PATCH', '/groups/1', 'groups.edit'],
  ['GET', '/leads', 'leads.view'],
  ['GET', '/leads/1', 'leads.view'],
  ['POST', '/leads', 'leads.create'],
  ['PATCH', '/leads/1', 'leads.edit'],
  ['GET', '/contacts?group_id=1', 'contacts.view'],
  ['GET', '/contacts/1', 'contacts.view'],
  ['POST', '/contacts', 'contacts.create'],
  ['PATCH', '/contacts/1', 'contacts.edit'],
  ['GET', '/entity-channel-accounts', 'entity_channel_accounts.view'],
  ['GET', '/entity-channel-accounts/1', 'entity_channel_accounts.view'],
  ['POST', '/entity-channel-accounts', 'entity_channel_accounts.create'],
  ['PATCH', '/entity-channel-accounts/1', 'entity_channel_accounts.edit'],
  ['GET', '/lead-assignments', 'leads.view'],
  ['POST', '/lead-assignments', 'lead_assignments.manage'],
  ['DELETE', '/lead-assignments/1', 'lead_assignments.manage'],
  ['GET', '/group-assignments', 'groups.view'],
  ['POST', '/group-assignments', 'group_assignments.manage'],
  ['DELETE', '/group-assignments/1', 'group_assignments.manage'],
  ['GET', '/custom-field-types', 'custom_field_types.view'],
  ['GET', '/custom-field-groups', 'custom_field_groups.view'],
  ['GET', '/custom-field-groups/1', 'custom_field_groups.view'],
  ['POST', '/custom-field-groups', 'custom_field_groups.create'],
  ['PATCH', '/custom-field-groups/1', 'custom_field_groups.edit'],
  ['GET', '/custom-fields', 'custom_fields.view'],
  ['GET', '/custom-fields/1', 'custom_fields.view'],
  ['POST', '/custom-fields', 'custom_fields.create'],
  ['PATCH', '/custom-fields/1', 'custom_fields.edit'],
  ['GET', '/groups/1/custom-field-values', 'groups.view'],
  ['PUT', '/groups/1/custom-field-values', 'groups.edit'],
  ['GET', '/contacts/1/custom-field-values', 'contacts.view'],
  ['PUT', '/contacts/1/custom-field-values', 'contacts.edit'],
  ['GET', '/cartera/leads', 'cartera.leads_list.view'],
  ['GET', '/cartera/clients', 'cartera.clients_list.view'],
  ['GET', '/cartera/leads/1', 'cartera.lead_detail.view'],
  ['PATCH', '/cartera/leads/1', 'cartera.lead_detail.edit'],
  ['GET', '/cartera/clients/1', 'cartera.client_detail.view'],
  ['PATCH', '/cartera/clients/1', 'cartera.client_detail.edit'],
  ['GET', '/cartera/export.xlsx', 'cartera.export_excel'],
];

beforeAll(async () => {
  t = await createTestApp();
  const entity = await makeEntity(t.database.db);
  noCodes = await tokenFor(t.app, await makeMember(t.database.db, { entityId: entity.id, codes: ['orders.view'] }));
});
afterAll(async () => t.close());

describe('route guards of records, custom fields and cartera', () => {
  it.each(ROUTES)('%s %s answers 403 permission_denied naming %s to a member without it', async (method, url, code) => {
    const payload = method === 'GET' || method === 'DELETE' ? undefined : {};
    const res = await t.app.inject({ method, url, headers: bearer(noCodes), ...(payload ? { payload } : {}) });
    expect(res.statusCode).toBe(403);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json()).toMatchObject({ code: 'permission_denied', permission: code });
  });

  it.each(ROUTES)('%s /api%s answers 401 unauthenticated without a token (served under /api too)', async (method, url) => {
    const res = await t.app.inject({ method, url: `/api${url}` });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ code: 'unauthenticated' });
  });

  it('GET /employees needs only a valid token', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/employees' })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'GET', url: '/employees', headers: bearer(noCodes) })).statusCode).toBe(200);
  });
});
