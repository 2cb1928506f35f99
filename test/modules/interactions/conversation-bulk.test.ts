/**
 * Bulk actions on conversations (issue 49): each item is the single action as if it were alone, with its own
 * result; refusals of some items leave the others applied; bad requests change nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { bearer, makeEntity, makeMember, tokenFor, type Member } from '../../helpers/factories.js';
import { makeChannelAccount } from '../../helpers/conversation-factories.js';
import { captureEvents, waitForConversation } from '../../helpers/interactions.js';
import { whatsAppMessage } from '../../../sim/communications/payloads.js';

let t: TestContext;
let manager: Member;
let managerToken: string;
let agent: Member;
let agentToken: string;
let plainToken: string;
let otherEntityConversation: number;
let events: ReturnType<typeof captureEvents<'conversation.resolved'>>;

const phone = () => `5026${randomBytes(4).readUInt32BE(0) % 10_000_000}`.padEnd(11, '0');

async function newConversation(account = 'PN-B1', token = managerToken): Promise<number> {
  const from = phone();
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/interactions/webhooks/communications',
    payload: whatsAppMessage({ phoneNumberId: account }, { from }),
  });
  expect(res.statusCode).toBe(200);
  await t.app.interactionsWorker.idle();
  return (await waitForConversation(t.app, token, from)).id;
}
const bulk = (payload: object, token = managerToken) =>
  t.app.inject({ method: 'POST', url: '/api/interactions/conversations/bulk', headers: bearer(token), payload });
const statusOf = async (id: number) =>
  (await t.app.inject({ method: 'GET', url: `/interactions/conversations/${id}`, headers: bearer(managerToken) })).json<{
    status: string;
    assigned_employee_id: number | null;
  }>();

beforeAll(async () => {
  t = await createTestApp();
  const e1 = (await makeEntity(t.database.db, 'Bulk')).id;
  const e2 = (await makeEntity(t.database.db, 'Bulk elsewhere')).id;
  await makeChannelAccount(t.database.db, { entityId: e1, externalAccountId: 'PN-B1' });
  await makeChannelAccount(t.database.db, { entityId: e2, externalAccountId: 'PN-B2' });
  manager = await makeMember(t.database.db, { entityId: e1, codes: ['cartera.seller_assignment'] });
  managerToken = await tokenFor(t.app, manager);
  agent = await makeMember(t.database.db, { entityId: e1, conversations: 'restricted' });
  agentToken = await tokenFor(t.app, agent);
  plainToken = await tokenFor(t.app, await makeMember(t.database.db, { entityId: e1 }));
  const otherToken = await tokenFor(t.app, await makeMember(t.database.db, { entityId: e2 }));
  otherEntityConversation = await newConversation('PN-B2', otherToken);
  events = captureEvents(t.app, ['conversation.resolved']);
});
afterAll(async () => {
  await t.close();
});

describe('POST /interactions/conversations/bulk', () => {
  it('resolves each conversation it may, and answers item by item for the others', async () => {
    const open = [await newConversation(), await newConversation(), await newConversation()];
    const resolved = await newConversation();
    expect((await t.app.inject({ method: 'POST', url: `/interactions/conversations/${resolved}/resolve`, headers: bearer(managerToken) })).statusCode).toBe(
      200,
    );
    const before = events.length;
    const ids = [open[0]!, resolved, otherEntityConversation, open[1]!, 999_999_999, open[2]!];
    const res = await bulk({ action: 'resolve', conversation_ids: ids });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      action: 'resolve',
      succeeded: 3,
      failed: 3,
      results: [
        { id: open[0], ok: true },
        { id: resolved, ok: false, status: 409, code: 'status_transition_not_allowed' },
        { id: otherEntityConversation, ok: false, status: 404, code: 'not_found' },
        { id: open[1], ok: true },
        { id: 999_999_999, ok: false, status: 404, code: 'not_found' },
        { id: open[2], ok: true },
      ],
    });
    for (const id of open) expect((await statusOf(id)).status).toBe('resolved');
    // The single action's domain events, one per resolved conversation.
    expect(
      events
        .slice(before)
        .map((e) => (e.payload as { conversation_id: number }).conversation_id)
        .sort(),
    ).toEqual([...open].sort());
    // The other entity's conversation is untouched.
    expect(events.slice(before).some((e) => (e.payload as { conversation_id: number }).conversation_id === otherEntityConversation)).toBe(false);
  });

  it("refuses, for that item only, another agent's conversation to an agent who sees only their own", async () => {
    const mine = await newConversation();
    const theirs = await newConversation();
    const assign = (id: number, employeeId: number) =>
      t.app.inject({ method: 'POST', url: `/interactions/conversations/${id}/assign`, headers: bearer(managerToken), payload: { employee_id: employeeId } });
    expect((await assign(mine, agent.employeeId)).statusCode).toBe(200);
    expect((await assign(theirs, manager.employeeId)).statusCode).toBe(200);
    const res = await bulk({ action: 'snooze', conversation_ids: [theirs, mine], until: new Date(Date.now() + 3_600_000).toISOString() }, agentToken);
    expect(res.json().results).toEqual([
      { id: theirs, ok: false, status: 404, code: 'not_found', detail: expect.any(String) },
      { id: mine, ok: true },
    ]);
    expect((await statusOf(mine)).status).toBe('snoozed');
    expect((await statusOf(theirs)).status).toBe('open');
  });

  it('assigns and unassigns with the assignment code, and without it changes nothing', async () => {
    const ids = [await newConversation(), await newConversation()];
    const refused = await bulk({ action: 'assign', conversation_ids: ids, employee_id: agent.employeeId }, plainToken);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().code).toBe('permission_denied');
    for (const id of ids) expect((await statusOf(id)).assigned_employee_id).toBeNull();
    const assigned = await bulk({ action: 'assign', conversation_ids: ids, employee_id: agent.employeeId });
    expect(assigned.json().succeeded).toBe(2);
    for (const id of ids) expect((await statusOf(id)).assigned_employee_id).toBe(agent.employeeId);
    const unassigned = await bulk({ action: 'unassign', conversation_ids: ids });
    expect(unassigned.json().succeeded).toBe(2);
    for (const id of ids) expect((await statusOf(id)).assigned_employee_id).toBeNull();
  });

  it('two bulk resolves racing over the same conversations resolve each exactly once', async () => {
    const ids = await Promise.all(Array.from({ length: 12 }, () => newConversation()));
    const before = events.length;
    const [a, b] = await Promise.all([
      bulk({ action: 'resolve', conversation_ids: ids }),
      bulk({ action: 'resolve', conversation_ids: [...ids].reverse() }, plainToken),
    ]);
    const won = (r: typeof a, id: number) => r.json<{ results: { id: number; ok: boolean; code?: string }[] }>().results.find((x) => x.id === id)!;
    for (const id of ids) {
      const outcomes = [won(a, id), won(b, id)];
      expect(outcomes.filter((o) => o.ok)).toHaveLength(1);
      expect(outcomes.find((o) => !o.ok)?.code).toBe('status_transition_not_allowed');
    }
    expect(events.length - before).toBe(ids.length);
  });

  it('refuses a bad request whole, changing nothing', async () => {
    const id = await newConversation();
    const cases: [object, string][] = [
      [{ action: 'resolve', conversation_ids: Array.from({ length: 501 }, (_, i) => i + 1) }, '/body/conversation_ids'],
      [{ action: 'resolve', conversation_ids: [id, id] }, '/body/conversation_ids'],
      [{ action: 'resolve', conversation_ids: [] }, '/body/conversation_ids'],
      [{ action: 'snooze', conversation_ids: [id] }, '/body/until'],
      [{ action: 'resolve', conversation_ids: [id], until: new Date(Date.now() + 60_000).toISOString() }, '/body/until'],
      [{ action: 'assign', conversation_ids: [id] }, '/body/employee_id'],
      [{ action: 'archive', conversation_ids: [id] }, '/body/action'],
    ];
    for (const [payload, field] of cases) {
      const res = await bulk(payload);
      expect(res.statusCode, JSON.stringify(payload).slice(0, 80)).toBe(400);
      expect(res.json().code).toBe('validation_failed');
      expect(JSON.stringify(res.json().errors)).toContain(field);
    }
    expect((await statusOf(id)).status).toBe('open');
  });
});
