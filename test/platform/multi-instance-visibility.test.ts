/**
 * Conversation visibility across two service processes on one PostgreSQL database and one Redis (issue 30):
 * the socket matrix of test/modules/interactions/conversation-visibility.test.ts (four roles × five
 * conversations relative to each agent, and another entity's) with every agent connected to both instances:
 * a change made through one instance reaches, on both, exactly the sockets of the members who see the
 * conversation; a restricted socket stops hearing a conversation once it is assigned away. Runs only when
 * TEST_DATABASE_URL and REDIS_URL are set.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db.js';
import { createTestApp, type TestContext } from '../helpers/test-app.js';
import { bearer, makeEntity, makeMember, tokenFor, type Member } from '../helpers/factories.js';
import { assignLeadSeller, makeChannelAccount } from '../helpers/conversation-factories.js';
import { connectSocket, waitFor, type ReceivedEvent } from '../helpers/interactions.js';
import { startService, type ServiceProcess } from '../helpers/service-process.js';
import { whatsAppMessage } from '../../sim/communications/payloads.js';
import { queryRows } from '../../src/db/client.js';
import { rebuildLeadSellers } from '../../src/modules/records/index.js';
import type { Socket } from 'socket.io-client';

const ROLES = ['view_all', 'reply_any', 'restricted', 'none'] as const;
type Role = (typeof ROLES)[number];
const KINDS = ['mine', 'another', 'my_queue', 'elsewhere', 'my_lead'] as const;
type Kind = (typeof KINDS)[number];
const CODES: Record<Role, string[] | undefined> = {
  view_all: ['conversations.view_all', 'leads.view'],
  reply_any: ['conversations.reply_any', 'leads.view'],
  restricted: ['leads.view'],
  none: undefined,
};
const INSTANCES = ['a', 'b'] as const;
type Instance = (typeof INSTANCES)[number];

describe.runIf(process.env.TEST_DATABASE_URL && process.env.REDIS_URL)('conversation visibility across two instances', () => {
  let testDb: TestDatabase;
  let t: TestContext;
  const service = {} as Record<Instance, ServiceProcess>;
  const sockets: Socket[] = [];
  const agents = {} as Record<Role, Member>;
  const ids = {} as Record<Role, Record<Kind, number>>;
  let foreignId: number;
  let foreignToken: string;
  let manager: Member;
  let managerToken: string;
  let other: Member;
  let phone = 50255560000;

  const api = (on: Instance, method: string, path: string, token: string, body?: object) =>
    fetch(`${service[on].baseUrl}${path}`, {
      method,
      headers: { ...bearer(token), ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });

  /** A conversation opened by a customer's message through instance A, once projected. */
  async function openConversation(account: string): Promise<number> {
    const from = String(phone++);
    expect(
      (await api('a', 'POST', '/api/interactions/webhooks/communications', managerToken, whatsAppMessage({ phoneNumberId: account }, { from }))).status,
    ).toBe(200);
    return waitFor(
      async () => (await queryRows<{ id: number }>(t.database.db, sql`select id from conversation where external_chat_id = ${from}`))[0]?.id,
      15_000,
    );
  }

  beforeAll(async () => {
    testDb = await createTestDatabase();
    t = await createTestApp({ testDb, startQueue: false });
    const db = t.database.db;
    const entityId = (await makeEntity(db, 'Visibility two')).id;
    const otherEntityId = (await makeEntity(db, 'Visibility elsewhere')).id;
    await makeChannelAccount(db, { entityId, externalAccountId: 'PN-VIS-MULTI' });
    await makeChannelAccount(db, { entityId: otherEntityId, externalAccountId: 'PN-VIS-MULTI-2' });
    manager = await makeMember(db, { entityId, codes: ['cartera.seller_assignment', 'entity_channel_accounts.edit'] });
    other = await makeMember(db, { entityId, name: 'Another agent' });
    [service.a, service.b] = await Promise.all([
      startService(testDb.url!, 'vis-a', { REDIS_URL: process.env.REDIS_URL! }, 120_000),
      startService(testDb.url!, 'vis-b', { REDIS_URL: process.env.REDIS_URL! }, 120_000),
    ]);
    managerToken = await tokenFor(t.app, manager);
    const createQueue = async (name: string) =>
      ((await (await api('a', 'POST', '/api/interactions/routing/queues', managerToken, { name })).json()) as { id: number }).id;
    const elsewhereQueue = await createQueue('Elsewhere');
    const place = (id: number, set: ReturnType<typeof sql>) => db.execute(sql`update conversation set ${set} where id = ${id}`);
    for (const role of ROLES) {
      const member = await makeMember(db, { entityId, name: `Agent ${role}`, conversations: 'restricted', ...(CODES[role] ? { codes: CODES[role] } : {}) });
      agents[role] = member;
      const queueId = await createQueue(`Queue of ${role}`);
      expect((await api('a', 'POST', `/api/interactions/routing/queues/${queueId}/members`, managerToken, { employee_id: member.employeeId })).status).toBe(
        201,
      );
      const row = {} as Record<Kind, number>;
      for (const kind of KINDS) row[kind] = await openConversation('PN-VIS-MULTI');
      await place(row.mine, sql`assignment_status = 'assigned', assigned_employee_id = ${member.employeeId}, queue_id = null`);
      await place(row.another, sql`assignment_status = 'assigned', assigned_employee_id = ${other.employeeId}, queue_id = null`);
      await place(row.my_queue, sql`assignment_status = 'queued', assigned_employee_id = null, queue_id = ${queueId}`);
      await place(row.elsewhere, sql`assignment_status = 'queued', assigned_employee_id = null, queue_id = ${elsewhereQueue}`);
      await place(row.my_lead, sql`assignment_status = 'assigned', assigned_employee_id = ${other.employeeId}, queue_id = null`);
      const [lead] = await queryRows<{ lead_id: number }>(db, sql`select lead_id from conversation where id = ${row.my_lead}`);
      await assignLeadSeller(db, entityId, lead!.lead_id, member.employeeId);
      ids[role] = row;
    }
    await rebuildLeadSellers(db, entityId);
    foreignId = await openConversation('PN-VIS-MULTI-2');
    foreignToken = await tokenFor(t.app, await makeMember(db, { entityId: otherEntityId }));
  }, 300_000);
  afterAll(async () => {
    for (const s of sockets) s.disconnect();
    await service.a?.dispose();
    await service.b?.dispose();
    await t?.close();
    await testDb?.close();
  });

  it('a change made on either instance reaches, on both, exactly the sockets whose members see the conversation', async () => {
    const connected = {} as Record<Role, Record<Instance, { socket: Socket; events: ReceivedEvent[] }>>;
    for (const role of ROLES) {
      const token = await tokenFor(t.app, agents[role]);
      connected[role] = {} as Record<Instance, { socket: Socket; events: ReceivedEvent[] }>;
      for (const on of INSTANCES) {
        connected[role][on] = await connectSocket(service[on].baseUrl, { token });
        sockets.push(connected[role][on].socket);
      }
    }
    const heard = (role: Role, on: Instance) =>
      new Set(connected[role][on].events.filter((e) => e.name === 'interaction.conversation.updated').map((e) => e.payload.conversation.id as number));
    const all = ROLES.flatMap((role) => KINDS.map((kind) => ids[role][kind]));
    const expected = (role: Role) => (role === 'view_all' ? all : [ids[role].mine, ids[role].my_queue, ids[role].my_lead]);

    // Changes alternate between the instances, so each socket hears changes made on its own and on the other.
    for (const [i, id] of all.entries())
      expect((await api(INSTANCES[i % 2]!, 'POST', `/api/interactions/conversations/${id}/follow-up`, managerToken, { follow_up: true })).status).toBe(200);
    // Another entity's conversation changes too: no socket of this entity hears it.
    expect((await api('b', 'POST', `/api/interactions/conversations/${foreignId}/follow-up`, foreignToken, { follow_up: true })).status).toBe(200);

    await waitFor(() => ROLES.every((role) => INSTANCES.every((on) => heard(role, on).size >= expected(role).length)), 20_000);
    await new Promise((r) => setTimeout(r, 500)); // anything wrongly addressed would have arrived by now
    for (const role of ROLES) for (const on of INSTANCES) expect([...heard(role, on)].sort(), `${role} on ${on}`).toEqual([...expected(role)].sort());

    // Assigned away through A: the restricted agent's sockets hear that once, then no longer hear it.
    const lost = ids.restricted.mine;
    expect((await api('a', 'POST', `/api/interactions/conversations/${lost}/assign`, managerToken, { employee_id: other.employeeId })).status).toBe(200);
    await waitFor(
      () =>
        INSTANCES.every((on) =>
          connected.restricted[on].events.some(
            (e) =>
              e.name === 'interaction.conversation.updated' &&
              e.payload.conversation.id === lost &&
              e.payload.conversation.assigned_employee_id === other.employeeId,
          ),
        ),
      15_000,
    );
    for (const role of ROLES) for (const on of INSTANCES) connected[role][on].events.length = 0;
    await api('b', 'POST', `/api/interactions/conversations/${lost}/follow-up`, managerToken, { follow_up: false });
    await waitFor(() => INSTANCES.every((on) => heard('view_all', on).has(lost)), 15_000);
    await new Promise((r) => setTimeout(r, 300));
    for (const on of INSTANCES) expect(heard('restricted', on).has(lost), `restricted on ${on}`).toBe(false);
  }, 180_000);
});
