/**
 * Labels in workflows (issue 49), over HTTP and the queue: `conversation.labeled` starts workflows, with the labels
 * added and by whom; the `labels` filter reads what a conversation (its own, its contact's and its lead's) or a lead
 * carries when the event is matched, and a condition reads it again when it runs; `add_label` and `remove_label`
 * change the conversation's own labels, and the event they cause carries the workflow's origin; a label deleted
 * since the workflow was saved fails its step with the reason; label ids are checked against the entity's catalogue
 * when a workflow is saved. Conversations come in through the webhook, as customers' messages do.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { ALL_CONVERSATIONS, bearer, makeEntity, makeMember, tokenFor } from '../../helpers/factories.js';
import { makeChannelAccount } from '../../helpers/conversation-factories.js';
import { waitFor, waitForConversation } from '../../helpers/interactions.js';
import { whatsAppMessage } from '../../../sim/communications/payloads.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are asserted field by field
type Row = Record<string, any>;
interface Conversation {
  id: number;
  contact_id: number;
  lead_id: number;
  follow_up: boolean;
  labels: { id: number; source: 'conversation' | 'contact' | 'lead' }[];
}

let t: TestContext;
let token: string;
let outsider: string;
let employeeId: number;
let sellerId: number;
const chats = ['50255520001', '50255520002', '50255520003', '50255520004', '50255520005'];
const conv: Conversation[] = [];

const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object, as = token) =>
  t.app.inject({ method, url, headers: bearer(as), ...(payload !== undefined ? { payload } : {}) });
const ok = async (res: ReturnType<typeof call>, status = 200): Promise<Row> => {
  const r = await res;
  expect(r.statusCode, r.body).toBe(status);
  return r.json();
};
const newLabel = async (name: string, as = token) => (await ok(call('POST', '/api/labels', { name, color: '#27AE60' }, as), 201)).id as number;
const createWorkflow = async (body: object) => (await ok(call('POST', '/api/workflows', body), 201)).id as number;
const disable = (id: number) => ok(call('PATCH', `/api/workflows/${id}`, { enabled: false }));
const conversation = async (id: number) => (await ok(call('GET', `/api/interactions/conversations/${id}`))) as Conversation;
/** The bodies of the conversation's private notes (a workflow's add_note writes one). */
const notesOf = async (id: number) =>
  ((await ok(call('GET', `/api/interactions/conversations/${id}/notes`))).data as { body: string }[]).map((n) => n.body).join('\n');
const executionsOf = async (id: number) => (await ok(call('GET', `/api/workflows/${id}/executions`))).data as Row[];
const detail = (workflowId: number, executionId: number) => ok(call('GET', `/api/workflows/${workflowId}/executions/${executionId}`));
const finished = (id: number, n = 1) =>
  waitFor(async () => {
    const rows = await executionsOf(id);
    return rows.length >= n && rows.every((r) => r.status !== 'running') ? rows : undefined;
  }, 15_000);
const inbound = async (chat: string, text: string) => {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/interactions/webhooks/communications',
    payload: whatsAppMessage({ phoneNumberId: 'PN-WF-LABELS' }, { from: chat, name: `Cliente ${chat.slice(-1)}`, text }),
  });
  expect(res.statusCode).toBe(200);
  await t.app.interactionsWorker.idle();
};
/** Waits until every event job of the workflows consumer has been handled (an event that started nothing leaves no row to wait for). */
const eventsHandled = () =>
  waitFor(async () => {
    const { rows } = await t.database.executeSql(
      "select count(*)::int as n from pgboss.job where name like '%:workflows' and state not in ('completed', 'failed', 'cancelled')",
      [],
    );
    return (rows[0] as { n: number }).n === 0 || undefined;
  }, 15_000);

beforeAll(async () => {
  t = await createTestApp({ startQueue: true });
  const entityId = (await makeEntity(t.database.db, 'Labelled automations')).id;
  const elsewhere = (await makeEntity(t.database.db, 'Labels of another entity')).id;
  await makeChannelAccount(t.database.db, { entityId, externalAccountId: 'PN-WF-LABELS' });
  const member = await makeMember(t.database.db, {
    entityId,
    codes: ['workflows.manage', 'workflows.execute', 'labels.manage', 'leads.edit', 'contacts.edit', 'lead_assignments.manage', ...ALL_CONVERSATIONS],
  });
  employeeId = member.employeeId;
  sellerId = (await makeMember(t.database.db, { entityId })).employeeId;
  token = await tokenFor(t.app, member);
  outsider = await tokenFor(t.app, await makeMember(t.database.db, { entityId: elsewhere, codes: ['labels.manage', 'workflows.manage'] }));
  for (const chat of chats) await inbound(chat, 'hola');
  for (const chat of chats) conv.push((await waitForConversation(t.app, token, chat)) as unknown as Conversation);
}, 60_000);
afterAll(async () => {
  await t?.close();
});

describe('conversation.labeled', () => {
  it('starts the workflows whose filters hold, with the labels added, every label carried and who labelled', async () => {
    const [vip, other] = [await newLabel('VIP'), await newLabel('Otra')];
    const id = await createWorkflow({
      name: 'Seguimiento VIP',
      preset_code: 'conv_labeled',
      filters: [{ field: 'trigger.label_ids', operator: 'contains', value: vip }],
      steps: [{ key: 'follow', action: 'set_follow_up', follow_up: true }],
    });
    const c = conv[0]!;
    await ok(call('POST', `/api/interactions/conversations/${c.id}/labels`, { label_ids: [other] }));
    await eventsHandled();
    expect(await executionsOf(id)).toEqual([]);
    await ok(call('POST', `/api/interactions/conversations/${c.id}/labels`, { label_ids: [vip] }));
    const [run] = await finished(id);
    expect(run).toMatchObject({ status: 'succeeded', trigger_type: 'conversation.labeled', depth: 0 });
    expect(run!.context_json.trigger).toEqual({
      type: 'conversation.labeled',
      entity_id: expect.any(Number),
      conversation_id: c.id,
      contact_id: c.contact_id,
      lead_id: c.lead_id,
      group_id: expect.any(Number),
      channel_type_code: 'chatapp_api',
      entity_channel_account_id: expect.any(Number),
      external_chat_id: chats[0],
      assignment_status: 'unassigned',
      assigned_employee_id: null,
      label_ids: [vip],
      labels: [vip, other].sort((a, b) => a - b),
      labeled_by_employee_id: employeeId,
      occurred_at: expect.any(String),
    });
    expect((await conversation(c.id)).follow_up).toBe(true);
    // A label the conversation already carries adds nothing, and starts nothing.
    await ok(call('POST', `/api/interactions/conversations/${c.id}/labels`, { label_ids: [vip] }));
    await eventsHandled();
    expect(await executionsOf(id)).toHaveLength(1);
    await disable(id);
  });
});

describe('the labels filter', () => {
  it('holds on the labels a conversation carries when the message arrives, from any source', async () => {
    const hot = await newLabel('Caliente');
    const [labelled, plain] = [conv[1]!, conv[2]!];
    // Put on the lead: the conversation shows it with source `lead`, and the filter reads that effective set.
    await ok(call('POST', `/api/leads/${labelled.lead_id}/labels`, { label_ids: [hot] }));
    const withHot = await createWorkflow({
      name: 'Caliente escribe',
      trigger_type: 'message.inbound',
      filters: [{ field: 'labels', operator: 'in', value: [hot] }],
      steps: [{ key: 'note', action: 'add_note', text: 'cliente caliente' }],
    });
    const withoutHot = await createWorkflow({
      name: 'Sin etiqueta caliente',
      trigger_type: 'message.inbound',
      filters: [{ field: 'labels', operator: 'not_contains', value: hot }],
      steps: [{ key: 'note', action: 'add_note', text: 'cliente frío' }],
    });
    await inbound(chats[1]!, 'quiero comprar');
    await inbound(chats[2]!, 'solo miro');
    const [hotRun] = await finished(withHot);
    const [coldRun] = await finished(withoutHot);
    await eventsHandled();
    expect(await executionsOf(withHot)).toHaveLength(1);
    expect(await executionsOf(withoutHot)).toHaveLength(1);
    expect(hotRun!.context_json).toMatchObject({ trigger: { external_chat_id: chats[1] }, labels: [hot] });
    expect(coldRun!.context_json).toMatchObject({ trigger: { external_chat_id: chats[2] }, labels: [] });
    expect(await notesOf(labelled.id)).toContain('cliente caliente');
    expect(await notesOf(plain.id)).toContain('cliente frío');
    expect(await notesOf(plain.id)).not.toContain('cliente caliente');
    await disable(withHot);
    await disable(withoutHot);
  });

  it('holds on the labels of the lead in lead events', async () => {
    const key = await newLabel('Cuenta clave');
    const [keyLead, otherLead] = [conv[3]!.lead_id, conv[4]!.lead_id];
    await ok(call('POST', `/api/leads/${keyLead}/labels`, { label_ids: [key] }));
    const id = await createWorkflow({
      name: 'Cuenta clave asignada',
      preset_code: 'crm_lead_assigned',
      filters: [{ field: 'labels', operator: 'contains', value: key }],
      steps: [{ key: 'hook', action: 'condition', filters: [{ field: 'labels', operator: 'contains', value: key }], then: null, else: null }],
    });
    await ok(call('POST', '/api/lead-assignments', { lead_id: otherLead, employee_id: sellerId }), 201);
    await ok(call('POST', '/api/lead-assignments', { lead_id: keyLead, employee_id: sellerId }), 201);
    const [run] = await finished(id);
    await eventsHandled();
    expect(await executionsOf(id)).toHaveLength(1);
    expect(run!.context_json).toMatchObject({ trigger: { type: 'lead.assigned', lead_id: keyLead }, labels: [key] });
    expect((await detail(id, run!.id)).steps).toMatchObject([{ step_key: 'hook', status: 'succeeded', result: { holds: true } }]);
    await disable(id);
  });
});

describe('add_label and remove_label', () => {
  it('put labels on the conversation itself and take them off; a condition after them reads the labels anew', async () => {
    const [a, b] = [await newLabel('Cotizar'), await newLabel('Llamar')];
    const c = conv[3]!;
    const add = await createWorkflow({
      name: 'Etiquetar',
      preset_code: 'manual',
      steps: [
        { key: 'label', action: 'add_label', label_ids: [a, b] },
        { key: 'check', action: 'condition', filters: [{ field: 'labels', operator: 'contains', value: b }], then: 'note', else: null },
        { key: 'note', action: 'add_note', text: 'etiquetada por el flujo' },
      ],
    });
    // The event the step causes carries the workflow's origin: what it starts runs one level deeper.
    const watch = await createWorkflow({
      name: 'Vigilar Cotizar',
      trigger_type: 'conversation.labeled',
      filters: [{ field: 'trigger.label_ids', operator: 'contains', value: a }],
      steps: [{ key: 'follow', action: 'set_follow_up', follow_up: true }],
    });
    await ok(call('POST', `/api/workflows/${add}/execute`, { contact_id: c.contact_id }), 202);
    const [run] = await finished(add);
    expect(run!.status).toBe('succeeded');
    const full = await detail(add, run!.id);
    expect(full.steps).toMatchObject([
      { step_key: 'label', status: 'succeeded', result: { conversation_id: c.id, label_ids: [a, b] } },
      { step_key: 'check', status: 'succeeded', result: { holds: true } },
      { step_key: 'note', status: 'succeeded' },
    ]);
    expect(full.context_json.labels).toEqual(expect.arrayContaining([a, b]));
    const labelled = await conversation(c.id);
    expect(labelled.labels).toEqual(
      expect.arrayContaining([
        { id: a, source: 'conversation' },
        { id: b, source: 'conversation' },
      ]),
    );
    expect(await notesOf(labelled.id)).toContain('etiquetada por el flujo');
    const [watched] = await finished(watch);
    expect(watched).toMatchObject({ status: 'succeeded', depth: 1, context_json: { trigger: { label_ids: [a, b], labeled_by_employee_id: null } } });

    const remove = await createWorkflow({ name: 'Quitar', preset_code: 'manual', steps: [{ key: 'unlabel', action: 'remove_label', label_ids: [a] }] });
    await ok(call('POST', `/api/workflows/${remove}/execute`, { contact_id: c.contact_id }), 202);
    expect((await finished(remove))[0]!.status).toBe('succeeded');
    const after = (await conversation(c.id)).labels;
    expect(after).toContainEqual({ id: b, source: 'conversation' });
    expect(after.some((l) => l.id === a)).toBe(false);
    await disable(watch);
  });

  it('records a failed step, with its reason, when a label was deleted since the workflow was saved', async () => {
    const gone = await newLabel('Temporal');
    const id = await createWorkflow({ name: 'Etiqueta borrada', preset_code: 'manual', steps: [{ key: 'label', action: 'add_label', label_ids: [gone] }] });
    expect((await call('DELETE', `/api/labels/${gone}`)).statusCode).toBe(204);
    await ok(call('POST', `/api/workflows/${id}/execute`, { contact_id: conv[4]!.contact_id }), 202);
    const [run] = await finished(id);
    expect(run).toMatchObject({
      status: 'failed',
      error: { step_key: 'label', code: 'not_found', message: `label ${gone} not found`, retryable: false, attempts: 1 },
    });
    expect((await detail(id, run!.id)).steps).toMatchObject([{ step_key: 'label', status: 'failed', error: { code: 'not_found', status: 404 } }]);
    expect((await conversation(conv[4]!.id)).labels.some((l) => l.id === gone)).toBe(false);
  });
});

describe('saving', () => {
  it('refuses label ids that are not labels of the entity, another entity’s too, naming each', async () => {
    const mine = await newLabel('Mía');
    const theirs = await newLabel('Ajena', outsider);
    const res = await call('POST', '/api/workflows', {
      name: 'Ajena',
      trigger_type: 'message.inbound',
      filters: [
        {
          any: [
            { field: 'labels', operator: 'in', value: [mine, theirs] },
            { field: 'labels', operator: 'contains', value: 999_999 },
          ],
        },
      ],
      steps: [
        { key: 'label', action: 'add_label', label_ids: [theirs, mine] },
        { key: 'check', action: 'condition', filters: [{ field: 'labels', operator: 'not_in', value: [theirs] }], then: null, else: null },
      ],
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ code: 'validation_failed' });
    expect((res.json().errors as Row[]).map((e) => e.field).sort()).toEqual(
      ['/body/filters/0/any/0/value/1', '/body/filters/0/any/1/value', '/body/steps/0/label_ids/0', '/body/steps/1/filters/0/value/0'].sort(),
    );
    // The same through a change; another entity's workflow is not found whatever labels it names.
    const id = await createWorkflow({ name: 'Mía', preset_code: 'manual', steps: [{ key: 'label', action: 'add_label', label_ids: [mine] }] });
    const change = await call('PATCH', `/api/workflows/${id}`, { steps: [{ key: 'label', action: 'remove_label', label_ids: [theirs] }] });
    expect(change.json()).toMatchObject({ status: 400, code: 'validation_failed', errors: [{ field: '/body/steps/0/label_ids/0' }] });
    expect((await call('PATCH', `/api/workflows/${id}`, { steps: [{ key: 'label', action: 'add_label', label_ids: [theirs] }] }, outsider)).statusCode).toBe(
      404,
    );
    expect((await ok(call('GET', `/api/workflows/${id}`))).steps).toEqual([{ key: 'label', action: 'add_label', label_ids: [mine] }]);
  });

  it('refuses label steps on triggers without a conversation, and the labels field where an event has none', async () => {
    const mine = await newLabel('Programada');
    const scheduled = await call('POST', '/api/workflows', {
      name: 'Programada',
      preset_code: 'sched_daily',
      preset_values: { run_at_time: '09:00' },
      steps: [{ key: 'label', action: 'add_label', label_ids: [mine] }],
    });
    expect(scheduled.json()).toMatchObject({ status: 400, errors: [{ field: '/body/steps/0/action' }] });
    const quote = await call('POST', '/api/workflows', {
      name: 'Cotización',
      preset_code: 'crm_quote_approved',
      filters: [{ field: 'labels', operator: 'contains', value: mine }],
      steps: [{ key: 'label', action: 'add_label', label_ids: [mine] }],
    });
    expect(quote.json()).toMatchObject({ status: 400, errors: [{ field: '/body/filters/0', message: 'labels is not a field of quote.approved' }] });
    const tooMany = await call('POST', '/api/workflows', {
      name: 'Muchas',
      preset_code: 'manual',
      steps: [{ key: 'label', action: 'add_label', label_ids: Array.from({ length: 21 }, (_, i) => i + 1) }],
    });
    expect(tooMany.statusCode).toBe(400);
  });

  it('lists the conversation.labeled card and fields', async () => {
    const cards = (await ok(call('GET', '/api/workflows/trigger-presets'))).data as Row[];
    expect(cards.find((c) => c.code === 'conv_labeled')).toMatchObject({ event: 'conversation.labeled', category: 'Mensajeria', available: true, filters: [] });
    const registry = (await ok(call('GET', '/api/workflows/trigger-fields'))).data as Row[];
    const labeled = registry.find((e) => e.event === 'conversation.labeled')!;
    expect(labeled.status).toBe('post_mvp');
    expect(labeled.fields.find((f: Row) => f.field === 'trigger.label_ids')).toMatchObject({ type: 'number[]', addition: true });
    for (const event of ['message.inbound', 'conversation.resolved', 'conversation.labeled', 'lead.assigned'])
      expect(
        registry.find((e) => e.event === event)!.fields.find((f: Row) => f.field === 'labels'),
        event,
      ).toMatchObject({
        type: 'number[]',
        operators: ['contains', 'not_contains', 'in', 'not_in', 'is_empty', 'is_not_empty'],
      });
  });
});
