/**
 * Labels (issue 49): one catalogue per entity, put on conversations, contacts and leads; a conversation shows its
 * own and its contact's and lead's with their source; the `label` (any of) and `label_all` (all of) filters of the
 * conversations, contacts, leads and cartera lists equal a brute-force filter of what the test applied, and the
 * inbox counts agree with the list; renaming and deleting reach every subject; bulk labelling answers item by item;
 * bad input is refused whole. Conversations come in through the webhook, as customers' messages do.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { ALL_CONVERSATIONS, bearer, makeEntity, makeMember, tokenFor, type Member } from '../../helpers/factories.js';
import { makeChannelAccount } from '../../helpers/conversation-factories.js';
import { captureEvents, connectSocket, listen, waitFor, waitForConversation } from '../../helpers/interactions.js';
import { whatsAppMessage } from '../../../sim/communications/payloads.js';

type Source = 'conversation' | 'contact' | 'lead';
interface Conversation {
  id: number;
  contact_id: number;
  lead_id: number;
  status: string;
  labels: { id: number; source: Source }[];
}

let t: TestContext;
let admin: Member;
let adminToken: string;
let agentToken: string;
let otherToken: string;
let otherLabel: number;
const conversations: Conversation[] = [];

const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, token: string, payload?: object) =>
  t.app.inject({ method, url: `/api${url}`, headers: bearer(token), ...(payload !== undefined ? { payload } : {}) });
const ok = async <T>(res: Promise<{ statusCode: number; body: string; json(): T }>, status = 200): Promise<T> => {
  const r = await res;
  expect(r.statusCode, r.body).toBe(status);
  return r.json();
};
const newLabel = async (name: string, token = adminToken) => (await ok<{ id: number }>(call('POST', '/labels', token, { name, color: '#2F80ED' }), 201)).id;
const query = (f: { any?: number[]; all?: number[] }) =>
  [...(f.any ?? []).map((id) => `label=${id}`), ...(f.all ?? []).map((id) => `label_all=${id}`)].join('&');
const inboxIds = async (f: { any?: number[]; all?: number[] }, token = adminToken) =>
  (await ok<{ data: Conversation[] }>(call('GET', `/interactions/conversations?limit=100&${query(f)}`, token))).data.map((c) => c.id).sort((a, b) => a - b);

beforeAll(async () => {
  t = await createTestApp();
  const e1 = (await makeEntity(t.database.db, 'Labelled Company')).id;
  const e2 = (await makeEntity(t.database.db, 'Labels elsewhere')).id;
  await makeChannelAccount(t.database.db, { entityId: e1, externalAccountId: 'PN-LABELS' });
  admin = await makeMember(t.database.db, {
    entityId: e1,
    codes: ['labels.manage', 'contacts.edit', 'leads.edit', 'cartera.leads_list.view', 'cartera.seller_assignment', ...ALL_CONVERSATIONS],
  });
  adminToken = await tokenFor(t.app, admin);
  agentToken = await tokenFor(t.app, await makeMember(t.database.db, { entityId: e1, codes: ['contacts.view'] }));
  otherToken = await tokenFor(t.app, await makeMember(t.database.db, { entityId: e2, codes: ['labels.manage', 'contacts.edit', 'leads.edit'] }));
  otherLabel = await newLabel('Ajena', otherToken);
  for (let i = 0; i < 8; i++) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/interactions/webhooks/communications',
      payload: whatsAppMessage({ phoneNumberId: 'PN-LABELS' }, { from: `5025553000${i}`, name: `Cliente ${i}`, text: 'hola' }),
    });
    expect(res.statusCode).toBe(200);
  }
  await t.app.interactionsWorker.idle();
  for (let i = 0; i < 8; i++) conversations.push((await waitForConversation(t.app, adminToken, `5025553000${i}`)) as unknown as Conversation);
}, 60_000);
afterAll(async () => {
  await t?.close();
});

describe('the label catalogue', () => {
  it('is one per entity: names unique whatever their case, colours as #rrggbb, written with labels.manage', async () => {
    const vip = await newLabel('VIP');
    expect((await call('POST', '/labels', adminToken, { name: 'vip', color: '#000000' })).json()).toMatchObject({ status: 409, code: 'label_name_taken' });
    expect((await call('POST', '/labels', adminToken, { name: 'Rojo', color: 'red' })).json().code).toBe('validation_failed');
    expect((await call('POST', '/labels', agentToken, { name: 'Mío', color: '#ffffff' })).json()).toMatchObject({ status: 403, permission: 'labels.manage' });
    // Every member reads the catalogue; another entity's label is not found, to read about or to change.
    const names = (await ok<{ data: { id: number; name: string; color: string }[] }>(call('GET', '/labels', agentToken))).data;
    expect(names.find((l) => l.id === vip)).toMatchObject({ name: 'VIP', color: '#2f80ed' });
    expect(names.some((l) => l.id === otherLabel)).toBe(false);
    expect((await call('PATCH', `/labels/${otherLabel}`, adminToken, { name: 'Mía' })).statusCode).toBe(404);
    expect((await call('DELETE', `/labels/${otherLabel}`, adminToken)).statusCode).toBe(404);
    expect((await call('PATCH', `/labels/${vip}`, adminToken, {})).statusCode).toBe(400);
  });
});

describe('labels on conversations, contacts and leads', () => {
  it('shows on a conversation with its source: the conversation itself, its contact or its lead', async () => {
    const [own, viaContact, viaLead, everywhere] = [
      await newLabel('Propia'),
      await newLabel('Del contacto'),
      await newLabel('Del lead'),
      await newLabel('En todo'),
    ];
    const c = conversations[0]!;
    const events = captureEvents(t.app, ['conversation.labeled']);
    const labelled = await ok<Conversation>(call('POST', `/interactions/conversations/${c.id}/labels`, adminToken, { label_ids: [own, everywhere] }));
    expect(labelled.labels).toEqual([
      { id: own, source: 'conversation' },
      { id: everywhere, source: 'conversation' },
    ]);
    expect(events).toEqual([
      {
        name: 'conversation.labeled',
        payload: expect.objectContaining({ conversation_id: c.id, label_ids: [own, everywhere], labeled_by_employee_id: admin.employeeId }),
      },
    ]);
    expect(await ok(call('POST', `/contacts/${c.contact_id}/labels`, adminToken, { label_ids: [viaContact, everywhere] }))).toEqual({
      label_ids: [viaContact, everywhere].sort((a, b) => a - b),
    });
    await ok(call('POST', `/leads/${c.lead_id}/labels`, adminToken, { label_ids: [viaLead, everywhere] }));
    const shown = (await ok<Conversation>(call('GET', `/interactions/conversations/${c.id}`, adminToken))).labels;
    expect(shown).toEqual([
      { id: own, source: 'conversation' },
      { id: everywhere, source: 'conversation' },
      { id: viaContact, source: 'contact' },
      { id: viaLead, source: 'lead' },
    ]);
    // Taken off the conversation, a label it also has from its contact stays, now from the contact.
    const after = await ok<Conversation>(call('DELETE', `/interactions/conversations/${c.id}/labels/${everywhere}`, adminToken));
    expect(after.labels).toContainEqual({ id: everywhere, source: 'contact' });
    expect((await ok<{ label_ids: number[] }>(call('GET', `/leads/${c.lead_id}`, adminToken))).label_ids).toEqual([viaLead, everywhere].sort((a, b) => a - b));
    // Another entity's label, contact or lead is not found, and nothing is applied.
    expect((await call('POST', `/interactions/conversations/${c.id}/labels`, adminToken, { label_ids: [own, otherLabel] })).json()).toMatchObject({
      status: 404,
      resource: 'label',
    });
    expect((await call('POST', `/contacts/${c.contact_id}/labels`, otherToken, { label_ids: [otherLabel] })).statusCode).toBe(404);
    expect((await ok<Conversation>(call('GET', `/interactions/conversations/${c.id}`, adminToken))).labels).toEqual(after.labels);
    // Labelling a record needs the right to edit it.
    expect((await call('POST', `/leads/${c.lead_id}/labels`, agentToken, { label_ids: [own] })).statusCode).toBe(403);
  });

  it('filters every list by any of and all of its labels, exactly as a brute-force filter of what was applied', async () => {
    const labels = [await newLabel('F1'), await newLabel('F2'), await newLabel('F3'), await newLabel('F4')];
    // What the test applies, subject by subject (a deterministic spread: each subject gets 0 to 2 labels).
    const applied = { conversation: new Map<number, Set<number>>(), contact: new Map<number, Set<number>>(), lead: new Map<number, Set<number>>() };
    const put = async (kind: Source, id: number, ids: number[]) => {
      if (ids.length === 0) return;
      const url = kind === 'conversation' ? `/interactions/conversations/${id}/labels` : `/${kind}s/${id}/labels`;
      await ok(call('POST', url, adminToken, { label_ids: ids }));
      applied[kind].set(id, new Set([...(applied[kind].get(id) ?? []), ...ids]));
    };
    for (const [i, c] of conversations.slice(1).entries()) {
      await put('conversation', c.id, labels.filter((_, k) => (i + k) % 3 === 0).slice(0, 2));
      await put(
        'contact',
        c.contact_id,
        labels.filter((_, k) => (i * 2 + k) % 5 === 1),
      );
      await put(
        'lead',
        c.lead_id,
        labels.filter((_, k) => (i + 2 * k) % 4 === 3),
      );
    }
    const effective = (c: Conversation) =>
      new Set([...(applied.conversation.get(c.id) ?? []), ...(applied.contact.get(c.contact_id) ?? []), ...(applied.lead.get(c.lead_id) ?? [])]);
    const matches = (have: Set<number>, f: { any?: number[]; all?: number[] }) =>
      (f.any === undefined || f.any.some((l) => have.has(l))) && (f.all === undefined || f.all.every((l) => have.has(l)));
    const filters = [
      { any: [labels[0]!] },
      { any: [labels[1]!, labels[3]!] },
      { all: [labels[0]!, labels[2]!] },
      { any: [labels[2]!], all: [labels[1]!] },
      { all: labels },
    ];
    const asked = conversations.slice(1);
    const askedIds = new Set(asked.map((c) => c.id));
    let nonEmpty = 0;
    for (const f of filters) {
      const expected = asked.filter((c) => matches(effective(c), f)).map((c) => c.id);
      if (expected.length > 0) nonEmpty++;
      expect(
        (await inboxIds(f)).filter((id) => askedIds.has(id)),
        JSON.stringify(f),
      ).toEqual(expected.sort((a, b) => a - b));
      // The tab counts under the same filter agree with the list.
      const counts = await ok<{ all: Record<string, number> }>(call('GET', `/interactions/conversations/counts?${query(f)}`, adminToken));
      expect(Object.values(counts.all).reduce((a, b) => a + b, 0)).toBe((await inboxIds(f)).length);
      const contacts = (await ok<{ data: { id: number }[] }>(call('GET', `/contacts?limit=100&${query(f)}`, adminToken))).data.map((c) => c.id);
      expect(contacts.sort((a, b) => a - b)).toEqual(
        asked
          .filter((c) => matches(applied.contact.get(c.contact_id) ?? new Set(), f))
          .map((c) => c.contact_id)
          .sort((a, b) => a - b),
      );
      const expectedLeads = asked
        .filter((c) => matches(applied.lead.get(c.lead_id) ?? new Set(), f))
        .map((c) => c.lead_id)
        .sort((a, b) => a - b);
      const leads = (await ok<{ data: { id: number }[] }>(call('GET', `/leads?limit=100&${query(f)}`, adminToken))).data.map((l) => l.id);
      expect(leads.sort((a, b) => a - b)).toEqual(expectedLeads);
      const cartera = (await ok<{ data: { id: number }[] }>(call('GET', `/cartera/leads?limit=100&${query(f)}`, adminToken))).data.map((l) => l.id);
      expect(cartera.sort((a, b) => a - b)).toEqual(expectedLeads);
    }
    expect(nonEmpty).toBeGreaterThanOrEqual(3);
    // The lists show each record's own label ids.
    const c = asked[0]!;
    const contact = (await ok<{ data: { id: number; label_ids: number[] }[] }>(call('GET', `/contacts?lead_id=${c.lead_id}`, adminToken))).data[0]!;
    expect(contact.label_ids).toEqual([...(applied.contact.get(c.contact_id) ?? [])].sort((a, b) => a - b));
  });

  it('tells the entity’s sockets, and only them, when a conversation’s labels change', async () => {
    const baseUrl = await listen(t.app);
    const mine = await connectSocket(baseUrl, { token: adminToken });
    const theirs = await connectSocket(baseUrl, { token: otherToken });
    try {
      const label = await newLabel('En vivo');
      const c = conversations[5]!;
      await ok(call('POST', `/interactions/conversations/${c.id}/labels`, adminToken, { label_ids: [label] }));
      const heard = await waitFor(() =>
        mine.events.find(
          (e) => e.name === 'interaction.conversation.updated' && e.payload.conversation.id === c.id && e.payload.conversation.labels.length > 0,
        ),
      );
      expect(heard.payload.conversation.labels).toContainEqual({ id: label, source: 'conversation' });
      await ok(call('DELETE', `/interactions/conversations/${c.id}/labels/${label}`, adminToken));
      await waitFor(() =>
        mine.events.find(
          (e) =>
            e.name === 'interaction.conversation.updated' &&
            e.payload.conversation.id === c.id &&
            !e.payload.conversation.labels.some((l: { id: number }) => l.id === label),
        ),
      );
      expect(theirs.events.filter((e) => e.name.startsWith('interaction.conversation'))).toEqual([]);
    } finally {
      mine.socket.disconnect();
      theirs.socket.disconnect();
    }
  });

  it('renames everywhere at once and, deleted, leaves every conversation, contact and lead', async () => {
    const label = await newLabel('Temporal');
    const c = conversations[2]!;
    await ok(call('POST', `/interactions/conversations/${c.id}/labels`, adminToken, { label_ids: [label] }));
    await ok(call('POST', `/contacts/${c.contact_id}/labels`, adminToken, { label_ids: [label] }));
    await ok(call('POST', `/leads/${c.lead_id}/labels`, adminToken, { label_ids: [label] }));
    expect((await ok<{ name: string }>(call('PATCH', `/labels/${label}`, adminToken, { name: 'Permanente' }))).name).toBe('Permanente');
    expect(await inboxIds({ any: [label] })).toEqual([c.id]);
    expect((await call('DELETE', `/labels/${label}`, adminToken)).statusCode).toBe(204);
    const after = await ok<Conversation>(call('GET', `/interactions/conversations/${c.id}`, adminToken));
    expect(after.labels.some((l) => l.id === label)).toBe(false);
    expect((await ok<{ label_ids: number[] }>(call('GET', `/leads/${c.lead_id}`, adminToken))).label_ids).not.toContain(label);
    // A deleted label is not found, as a filter's value is simply matched by nothing.
    expect((await call('POST', `/contacts/${c.contact_id}/labels`, adminToken, { label_ids: [label] })).statusCode).toBe(404);
  });
});

describe('bulk labelling', () => {
  it('labels conversations item by item: one the caller may not see is 404 for that item only', async () => {
    const label = await newLabel('Masiva');
    const agent = await makeMember(t.database.db, { entityId: admin.entityId, conversations: 'restricted' });
    const agentOwnToken = await tokenFor(t.app, agent);
    const mine = conversations[3]!;
    await ok(call('POST', `/interactions/conversations/${mine.id}/assign`, adminToken, { employee_id: agent.employeeId }));
    const res = await ok<{ succeeded: number; failed: number; results: object[] }>(
      call('POST', '/interactions/conversations/bulk', agentOwnToken, {
        action: 'label',
        conversation_ids: [mine.id, conversations[4]!.id],
        label_ids: [label],
      }),
    );
    expect(res).toMatchObject({ succeeded: 1, failed: 1 });
    expect(res.results).toEqual([
      { id: mine.id, ok: true },
      { id: conversations[4]!.id, ok: false, status: 404, code: 'not_found', detail: expect.any(String) },
    ]);
    expect(await inboxIds({ any: [label] })).toEqual([mine.id]);
    const off = await ok<{ succeeded: number }>(
      call('POST', '/interactions/conversations/bulk', adminToken, { action: 'unlabel', conversation_ids: [mine.id], label_ids: [label] }),
    );
    expect(off.succeeded).toBe(1);
    expect(await inboxIds({ any: [label] })).toEqual([]);
  });

  it('labels contacts and leads item by item, and refuses bad input whole', async () => {
    const label = await newLabel('Campaña');
    const leadIds = conversations.slice(0, 3).map((c) => c.lead_id);
    const missing = 2_000_000_000;
    const res = await ok<{ succeeded: number; failed: number; results: { id: number; ok: boolean; status?: number }[] }>(
      call('POST', '/leads/labels/bulk', adminToken, { action: 'label', ids: [...leadIds, missing], label_ids: [label] }),
    );
    expect(res).toMatchObject({ action: 'label', succeeded: 3, failed: 1 });
    expect(res.results.at(-1)).toMatchObject({ id: missing, ok: false, status: 404 });
    expect((await ok<{ data: { id: number }[] }>(call('GET', `/leads?label=${label}`, adminToken))).data.map((l) => l.id).sort((a, b) => a - b)).toEqual(
      [...leadIds].sort((a, b) => a - b),
    );
    // Another entity's label, a 501st item, an unknown action, a label missing: 4xx, nothing applied.
    const contactIds = conversations.map((c) => c.contact_id);
    expect((await call('POST', '/contacts/labels/bulk', adminToken, { action: 'label', ids: contactIds, label_ids: [label, otherLabel] })).statusCode).toBe(
      404,
    );
    const tooMany = Array.from({ length: 501 }, (_, i) => i + 1);
    expect((await call('POST', '/contacts/labels/bulk', adminToken, { action: 'label', ids: tooMany, label_ids: [label] })).statusCode).toBe(400);
    expect(
      (await call('POST', '/interactions/conversations/bulk', adminToken, { action: 'label', conversation_ids: tooMany, label_ids: [label] })).statusCode,
    ).toBe(400);
    expect(
      (await call('POST', '/interactions/conversations/bulk', adminToken, { action: 'label', conversation_ids: [conversations[0]!.id] })).json(),
    ).toMatchObject({
      code: 'validation_failed',
      errors: [{ field: '/body/label_ids' }],
    });
    expect(
      (await call('POST', '/interactions/conversations/bulk', adminToken, { action: 'resolve', conversation_ids: [conversations[0]!.id], label_ids: [label] }))
        .statusCode,
    ).toBe(400);
    expect((await ok<{ data: unknown[] }>(call('GET', `/contacts?label=${label}`, adminToken))).data).toEqual([]);
    // Labelling records in bulk needs the right to edit them.
    expect((await call('POST', '/contacts/labels/bulk', agentToken, { action: 'label', ids: contactIds, label_ids: [label] })).statusCode).toBe(403);
  });
});
