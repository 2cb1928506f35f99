/**
 * An empty change over the whole OpenAPI document (issue 47): every PATCH and PUT operation gets the body
 * `{}` from a super administrator of an entity, with its path ids naming real records of that entity
 * where the test creates them cheaply (any id otherwise). No answer may be a 5xx: an empty change is
 * 200/204 (nothing changed), or a 400/404/409/422 problem+json when the operation needs more.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../helpers/test-app.js';
import { bearer, makeEntity, makeMember, tokenFor } from '../helpers/factories.js';
import { makeChannelAccount, makeContact } from '../helpers/conversation-factories.js';
import { conversation } from '../../src/modules/interactions/model/conversation.table.js';

interface Operation {
  operationId: string;
  requestBody?: { content: Record<string, unknown> };
}
interface Doc {
  paths: Record<string, Record<string, Operation>>;
}

/** The super administrator is also a privileged operator, so the communications config is reached too. */
const OPERATOR = 'operator-empty-change@example.com';
/** An id no fixture has: the operation answers 404 (or ignores it), never 5xx. */
const ANY_ID = 2_147_483_647;
const EMPTY_CHANGE_STATUSES = [200, 204];
const REFUSAL_STATUSES = [400, 404, 409, 422];

let t: TestContext;
let token: string;
let otherToken: string;
let doc: Doc;
/** Path parameters of real records, by path template (bare form). */
const fixtures: Record<string, Record<string, number>> = {};

const api = async (method: 'POST' | 'GET' | 'PATCH' | 'PUT', url: string, body?: unknown, as = token) =>
  t.app.inject({ method, url, headers: bearer(as), ...(body === undefined ? {} : { payload: body as object }) });

/** POSTs `body` to `url` and returns the created record's id (fails the suite when creation fails). */
async function created(url: string, body: unknown): Promise<number> {
  const res = await api('POST', url, body);
  if (res.statusCode !== 201 && res.statusCode !== 200) throw new Error(`POST ${url}: ${res.statusCode} ${res.body}`);
  return res.json<{ id: number }>().id;
}

beforeAll(async () => {
  t = await createTestApp({ env: { COMMUNICATIONS_PRIVILEGED_OPERATOR_EMAILS: OPERATOR } });
  const { db } = t.database;
  const entity = await makeEntity(db);
  const admin = await makeMember(db, { entityId: entity.id, superAdmin: true, email: OPERATOR });
  token = await tokenFor(t.app, admin);
  const other = await makeEntity(db);
  otherToken = await tokenFor(t.app, await makeMember(db, { entityId: other.id, superAdmin: true }));
  doc = (await t.app.inject('/openapi.json')).json();

  const group = await created('/groups', { name: 'Empty change' });
  const lead = await created('/leads', { group_id: group, name: 'Empty change' });
  const contact = await created('/contacts', { lead_id: lead, name: 'Empty change' });
  const role = await created('/api/roles', { name: 'Empty change', permissions: [] });
  const subscriber = await makeMember(db, { entityId: entity.id, conversations: 'restricted' });
  const subscription = await created('/api/subscriptions', { employee_id: subscriber.employeeId, role_id: role });
  const fieldGroup = await created('/custom-field-groups', { name: 'Empty change', record_type: 'contact' });
  const field = await created('/custom-fields', { custom_field_group_id: fieldGroup, name: 'Empty change', type: 'text' });
  const website = await created('/entity-channel-accounts', { channel_type_code: 'web', display_name: 'Empty change' });
  const hours = await created('/interactions/business-hours', { intervals: [] });
  const policy = await created('/interactions/sla-policies', { name: 'Empty change' });
  const queue = await created('/interactions/routing/queues', { name: 'Empty change' });
  const member = await created(`/interactions/routing/queues/${queue}/members`, { employee_id: admin.employeeId });
  const filter = await created('/interactions/routing/filters', { name: 'Empty change', queue_id: queue, conditions: { channel_type_codes: ['chatapp_api'] } });
  const quote = await created('/quotes', {
    lead_id: lead,
    currency: 'GTQ',
    valid_until: '2099-12-31',
    lines: [{ description: 'Instalación', quantity: '1', unit_price: '9.99' }],
  });
  const workflow = await created('/api/workflows', {
    name: 'Empty change',
    trigger_type: 'manual',
    steps: [{ key: 'f', action: 'set_follow_up', follow_up: true }],
  });
  const account = await makeChannelAccount(db, { entityId: entity.id });
  const party = await makeContact(db, { entityId: entity.id });
  const [chat] = await db
    .insert(conversation)
    .values({
      entityId: entity.id,
      entityChannelAccountId: account.id,
      channelTypeCode: 'chatapp_api',
      externalChatId: '50255547000',
      contactId: party.contactId,
      leadId: party.leadId,
      groupId: party.groupId,
    })
    .returning();

  Object.assign(fixtures, {
    '/roles/{id}': { id: role },
    '/subscriptions/{id}': { id: subscription },
    '/groups/{id}': { id: group },
    '/leads/{id}': { id: lead },
    '/contacts/{id}': { id: contact },
    '/custom-field-groups/{id}': { id: fieldGroup },
    '/custom-fields/{id}': { id: field },
    '/groups/{id}/custom-field-values': { id: group },
    '/contacts/{id}/custom-field-values': { id: contact },
    '/cartera/leads/{id}': { id: lead },
    '/cartera/clients/{id}': { id: contact },
    '/interactions/conversations/{id}/workspace-notes': { id: chat!.id },
    '/entity-channel-accounts/{id}': { id: website },
    '/entity-channel-accounts/{id}/web': { id: website },
    '/interactions/business-hours/{id}': { id: hours },
    '/interactions/sla-policies/{id}': { id: policy },
    '/interactions/routing/queues/{id}': { id: queue },
    '/interactions/routing/queues/{id}/members/{memberId}': { id: queue, memberId: member },
    '/interactions/routing/filters/{id}': { id: filter },
    '/quotes/{id}': { id: quote },
    '/workflows/{id}': { id: workflow },
  });
});
afterAll(async () => t.close());

/** The path with its parameters filled from the fixtures (the `/api` copy shares its bare path's). */
function urlOf(path: string): { url: string; real: boolean } {
  const bare = path.startsWith('/api/') ? path.slice(4) : path;
  const params = fixtures[bare];
  const url = path.replace(/\{(\w+)\}/g, (_, name: string) => String(params?.[name] ?? ANY_ID));
  return { url, real: params !== undefined };
}

describe('an empty change to any resource', () => {
  it('never answers 5xx: 200/204 when nothing changed, else a 400/404/409/422 problem+json', async () => {
    const failures: string[] = [];
    let operations = 0;
    let withRealRecords = 0;
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        if (method !== 'patch' && method !== 'put') continue;
        if (op.requestBody?.content['application/json'] === undefined) continue;
        operations++;
        const { url, real } = urlOf(path);
        if (real) withRealRecords++;
        const res = await api(method.toUpperCase() as 'PATCH' | 'PUT', url, {});
        const problem = String(res.headers['content-type']).startsWith('application/problem+json');
        const fine = EMPTY_CHANGE_STATUSES.includes(res.statusCode) || (REFUSAL_STATUSES.includes(res.statusCode) && problem);
        if (!fine) failures.push(`${method.toUpperCase()} ${path} (${op.operationId}) → ${res.statusCode} ${res.body.slice(0, 200)}`);
      }
    }
    expect(operations).toBeGreaterThan(40);
    expect(withRealRecords).toBeGreaterThan(35);
    expect(failures).toEqual([]);
  });

  it('answers a routing queue, member and filter back unchanged, bare and under /api, and another entity 404', async () => {
    for (const path of ['/interactions/routing/queues/{id}', '/interactions/routing/queues/{id}/members/{memberId}', '/interactions/routing/filters/{id}']) {
      for (const prefix of ['', '/api']) {
        const { url } = urlOf(`${prefix}${path}`);
        const list = url.replace(/\/\d+$/, ''); // the collection the record is listed in
        const before = (await api('GET', list)).json<{ data: { id: number }[] }>().data.find((r) => url.endsWith(`/${r.id}`));
        expect(before).toBeDefined();
        const res = await api('PATCH', url, {});
        expect({ url, status: res.statusCode }).toEqual({ url, status: 200 });
        expect(res.json()).toEqual(before);
        const foreign = await api('PATCH', url, {}, otherToken);
        expect({ url, status: foreign.statusCode, code: foreign.json<{ code: string }>().code }).toEqual({ url, status: 404, code: 'not_found' });
      }
    }
  });
});
