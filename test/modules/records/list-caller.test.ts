/**
 * The lead list and the portfolio read the caller's membership along with their page, in one statement
 * (guard.ts, `membershipReadAlong`): the guard only verifies the token, and the page is answered only once
 * the principal read with it passes the same checks as on every other route. These tests hold the lists to
 * the guard's rules: a revoked membership or a permission taken away shows at the very next request, nothing
 * of the page is answered to a caller who may not see it, 401/403 come before 400, and a page is the
 * token's entity's only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { addMembership, bearer, makeEntity, makeMember, tokenFor, type Member } from '../../helpers/factories.js';
import { makeGroup, makeLead } from '../../helpers/records-factories.js';

let t: TestContext;
let entityA: number;
let entityB: number;

const LISTS = [
  { url: '/leads', code: 'leads.view', lead: 'Lista Alfa' },
  { url: '/api/leads', code: 'leads.view', lead: 'Lista Alfa' },
  { url: '/cartera/leads', code: 'cartera.leads_list.view', lead: 'Lista Alfa' },
  { url: '/cartera/clients', code: 'cartera.clients_list.view', lead: 'Cliente Alfa' },
] as const;
const ALL_CODES = [...new Set(LISTS.map((l) => l.code))];

const get = (url: string, token: string) => t.app.inject({ method: 'GET', url, headers: bearer(token) });
/** The records' names on a page: `name` on the lead list, `lead` or `client` on the portfolio's. */
const names = (body: { data: Record<string, unknown>[] }) => body.data.map((item) => item.name ?? item.lead ?? item.client);

beforeAll(async () => {
  t = await createTestApp();
  const db = t.database.db;
  entityA = (await makeEntity(db)).id;
  entityB = (await makeEntity(db)).id;
  const groupA = await makeGroup(db, entityA, 'Grupo Alfa');
  const groupB = await makeGroup(db, entityB, 'Grupo Beta');
  await makeLead(db, { entityId: entityA, groupId: groupA.id, name: 'Lista Alfa' });
  await makeLead(db, { entityId: entityA, groupId: groupA.id, name: 'Cliente Alfa', erpId: 'ERP-A' });
  await makeLead(db, { entityId: entityB, groupId: groupB.id, name: 'Lista Beta' });
  await makeLead(db, { entityId: entityB, groupId: groupB.id, name: 'Cliente Beta', erpId: 'ERP-B' });
});
afterAll(async () => t.close());

describe.each(LISTS)('GET $url reads the caller with its page', ({ url, code, lead }) => {
  let member: Member;
  let token: string;

  beforeAll(async () => {
    member = await makeMember(t.database.db, { entityId: entityA, codes: [code] });
    token = await tokenFor(t.app, member);
  });

  it("answers the token's entity's page, never another's, for a user who is a member of both", async () => {
    await addMembership(t.database.db, member.userId, entityB);
    const res = await get(url, token);
    expect(res.statusCode).toBe(200);
    expect(names(res.json())).toContain(lead);
    expect(res.body).not.toContain('Beta');
  });

  it('refuses the very next request once the membership is inactive, with nothing of the page, and accepts it again once restored', async () => {
    await t.database.executeSql('update employee set is_active = false where id = $1', [member.employeeId]);
    const refused = await get(url, token);
    expect(refused.statusCode).toBe(401);
    expect(refused.json().code).toBe('membership_revoked');
    expect(refused.body).not.toContain(lead);
    await t.database.executeSql('update employee set is_active = true where id = $1', [member.employeeId]);
    expect((await get(url, token)).statusCode).toBe(200);
  });

  it('answers 403 at the very next request once the permission is denied by an override, and the page again once it is lifted', async () => {
    await t.database.executeSql(`insert into subscription_override (subscription_id, permission_code, effect) values ($1, $2, 'DENY')`, [
      member.subscriptionId,
      code,
    ]);
    const denied = await get(url, token);
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toMatchObject({ code: 'permission_denied', permission: code });
    expect(denied.body).not.toContain(lead);
    await t.database.executeSql('delete from subscription_override where subscription_id = $1', [member.subscriptionId]);
    expect(names((await get(url, token)).json())).toContain(lead);
  });

  it('answers a bad query 400 to a caller who may see the list, and 401/403 first to one who may not', async () => {
    const bad = `${url}?limit=0`;
    const invalid = await get(bad, token);
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json()).toMatchObject({ code: 'validation_failed', errors: [expect.objectContaining({ field: '/query/limit' })] });

    const outsider = await makeMember(t.database.db, { entityId: entityA, codes: ALL_CODES.filter((c) => c !== code) });
    const outsiderToken = await tokenFor(t.app, outsider);
    const forbidden = await get(bad, outsiderToken);
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json().code).toBe('permission_denied');

    await t.database.executeSql('update employee set is_active = false where id = $1', [outsider.employeeId]);
    expect((await get(bad, outsiderToken)).json().code).toBe('membership_revoked');
    expect((await get(bad, 'not-a-token')).json().code).toBe('invalid_token');
  });
});

it('answers a user with no membership left in any entity 401 on every list', async () => {
  const gone = await makeMember(t.database.db, { entityId: entityA, codes: ALL_CODES });
  const token = await tokenFor(t.app, gone);
  await t.database.executeSql('delete from subscription where employee_id = $1', [gone.employeeId]);
  await t.database.executeSql('delete from employee where id = $1', [gone.employeeId]);
  for (const { url } of LISTS) {
    const res = await get(url, token);
    expect(res.statusCode, url).toBe(401);
    expect(res.json().code, url).toBe('membership_revoked');
  }
});
