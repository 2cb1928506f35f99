/**
 * The conversation event log and the daily reports built on it (issue 31), through the public API: a
 * randomized history (seeded) of inbound messages by webhook, sends, assignments and lifecycle actions, then
 * every report (no grouping, per agent, queue and channel) must equal a brute-force recomputation from what
 * the API shows (each conversation's messages, and the status and assignee after every step). Also: local
 * day boundaries (DST included), tenant isolation, `reports.view` against one's own rows, the SLA column
 * over SLA events, and the CSV and xlsx downloads. By label (issue 49): labels put on conversations, contacts and
 * leads, then the rows per label and the `label` filter on every grouping equal the brute force over each
 * conversation's labels now (a conversation with two labels in both rows), past days included; another
 * entity's label matches nothing.
 */
import ExcelJS from 'exceljs';
import { DateTime } from 'luxon';
import { randomBytes } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { queryRows } from '../../../src/db/client.js';
import { conversationEvent } from '../../../src/modules/interactions/model/conversation-event.table.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { bearer, makeEntity, makeMember, tokenFor, type Member } from '../../helpers/factories.js';
import { makeChannelAccount } from '../../helpers/conversation-factories.js';
import { metaMessage, whatsAppMessage } from '../../../sim/communications/payloads.js';
import { startProviderSimulator, type ProviderSimulator } from '../../../sim/communications/provider.js';

type Row = Record<string, unknown>;
type Kind = 'opened' | 'resolved' | 'reopened' | 'first_response' | 'message_in' | 'message_out';
interface Expected {
  kind: Kind;
  at: number;
  agent: number | null;
  channel: string;
  /** The conversation's id, for its labels. */
  conversation: number;
  seconds?: number;
}
interface Conv {
  chat: string;
  channel: 'chatapp_api' | 'social_messenger';
  id: number;
  status: string;
  assignee: number | null;
  /** The platform id of the message that opened it. */
  openedBy: string;
  /** Resolutions and reopenings as the API showed them. */
  statusEvents: Expected[];
}

const API_KEY = 'sim-key-0123456789';
const TZ = 'America/Guatemala';
let sim: ProviderSimulator;
let t: TestContext;
let e1: number;
let e2: number;
let manager: string;
let otherEntity: string;
/** Members who put labels on conversations, contacts and leads, in entity 1 and entity 2. */
let labeller: string;
let otherLabeller: string;
const agents: { member: Member; token: string }[] = [];
let restricted: { member: Member; token: string };

/** A seeded generator (mulberry32): the same seed replays the same history. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const get = (url: string, token = manager) => t.app.inject({ method: 'GET', url, headers: bearer(token) });
const post = (url: string, token: string, payload?: object) =>
  t.app.inject({ method: 'POST', url, headers: bearer(token), ...(payload !== undefined ? { payload } : {}) });
const webhook = async (payload: object) => {
  const res = await t.app.inject({ method: 'POST', url: '/api/interactions/webhooks/communications', payload });
  expect(res.statusCode).toBe(200);
  await t.app.interactionsWorker.idle();
};
const detail = async (id: number) => (await get(`/interactions/conversations/${id}`)).json<Row>();
const assigneeOf = (c: Row) => (c.assignment_status === 'assigned' ? (c.assigned_employee_id as number) : null);
const ms = (iso: unknown) => Date.parse(iso as string);
const today = () => DateTime.now().setZone(TZ).toISODate()!;

/** An inbound message on `channel` from `chat`, with platform id `id` and time `atSeconds` (epoch seconds). */
function inboundPayload(channel: Conv['channel'], chat: string, id: string, atSeconds: number, account = { wa: 'PN-R1', page: 'PAGE-R1' }) {
  return channel === 'chatapp_api'
    ? whatsAppMessage({ phoneNumberId: account.wa }, { from: chat, id, text: 'hola', timestamp: atSeconds })
    : metaMessage('page', account.page, { from: chat, mid: id, text: 'hola', timestamp: atSeconds * 1000 });
}

/** The conversation of chat `chat` as the manager sees it. */
async function conversationOf(chat: string): Promise<Row> {
  const res = await get(`/interactions/conversations?q=${chat}`);
  return (res.json().data as Row[]).find((c) => c.external_chat_id === chat)!;
}

/** Interpolated percentile, as PostgreSQL's percentile_cont. */
function percentile(values: number[], p: number): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const pos = p * (s.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo]! + (s[hi]! - s[lo]!) * (pos - lo);
}

/** Labels for the brute force: each conversation's labels now, and the `label` filter (any of) if any. */
interface LabelView {
  labelsOf: Map<number, number[]>;
  anyOf?: number[];
}

/**
 * The report rows `events` make, grouped by `group` (the brute force). With `labels`: only the events of
 * conversations carrying any of `anyOf`, and with group `label` one row per label of the event's conversation
 * (of `anyOf`'s when given).
 */
function bruteForce(events: Expected[], group: 'none' | 'agent' | 'queue' | 'channel' | 'label', labels?: LabelView, tz = TZ): Row[] {
  const rows = new Map<string, { date: string; key: string | number | null; events: Expected[] }>();
  for (const e of events) {
    const date = DateTime.fromMillis(e.at, { zone: tz }).toISODate()!;
    const carried = labels?.labelsOf.get(e.conversation) ?? [];
    if (labels?.anyOf !== undefined && !carried.some((l) => labels.anyOf!.includes(l))) continue;
    const keys =
      group === 'label'
        ? carried.filter((l) => labels?.anyOf === undefined || labels.anyOf.includes(l))
        : [group === 'agent' ? e.agent : group === 'channel' ? e.channel : null];
    for (const key of keys) {
      const id = `${date}|${String(key)}`;
      if (!rows.has(id)) rows.set(id, { date, key, events: [] });
      rows.get(id)!.events.push(e);
    }
  }
  const count = (es: Expected[], k: Kind) => es.filter((e) => e.kind === k).length;
  const secs = (es: Expected[], k: Kind) => es.filter((e) => e.kind === k && e.seconds !== undefined).map((e) => e.seconds!);
  const round = (v: number | null) => (v === null ? null : Math.round(v * 1000) / 1000);
  return [...rows.values()]
    .sort(
      (a, b) =>
        a.date.localeCompare(b.date) || (a.key === null ? -1 : b.key === null ? 1 : String(a.key).localeCompare(String(b.key), 'en', { numeric: true })),
    )
    .map(({ date, key, events: es }) => ({
      date,
      ...(group === 'agent'
        ? { agent_id: key }
        : group === 'queue'
          ? { queue_id: null }
          : group === 'channel'
            ? { channel: key }
            : group === 'label'
              ? { label_id: key }
              : {}),
      conversations_opened: count(es, 'opened'),
      conversations_resolved: count(es, 'resolved'),
      conversations_reopened: count(es, 'reopened'),
      first_response_median_seconds: round(percentile(secs(es, 'first_response'), 0.5)),
      first_response_p90_seconds: round(percentile(secs(es, 'first_response'), 0.9)),
      resolution_median_seconds: round(percentile(secs(es, 'resolved'), 0.5)),
      resolution_p90_seconds: round(percentile(secs(es, 'resolved'), 0.9)),
      sla_achievement_pct: null,
      messages_in: count(es, 'message_in'),
      messages_out: count(es, 'message_out'),
    }));
}

/** Report rows with durations compared to the millisecond. */
function expectRows(actual: Row[], expected: Row[], label: string) {
  const keys = ['first_response_median_seconds', 'first_response_p90_seconds', 'resolution_median_seconds', 'resolution_p90_seconds'];
  expect(actual.length, label).toBe(expected.length);
  actual.forEach((row, i) => {
    const want = expected[i]!;
    for (const k of keys) {
      if (want[k] === null) expect(row[k], `${label} ${i} ${k}`).toBeNull();
      else expect(Math.abs((row[k] as number) - (want[k] as number)), `${label} ${i} ${k}`).toBeLessThanOrEqual(0.0015);
    }
    const strip = (r: Row) => Object.fromEntries(Object.entries(r).filter(([k]) => !keys.includes(k)));
    expect(strip(row), `${label} ${i}`).toEqual(strip(want));
  });
}

beforeAll(async () => {
  sim = await startProviderSimulator({ apiKey: API_KEY });
  t = await createTestApp({ env: { COMMUNICATIONS_BASE_URL: sim.url, COMMUNICATIONS_API_KEY: API_KEY } });
  e1 = (await makeEntity(t.database.db, 'Reports')).id;
  e2 = (await makeEntity(t.database.db, 'Reports elsewhere')).id;
  await makeChannelAccount(t.database.db, { entityId: e1, externalAccountId: 'PN-R1' });
  await makeChannelAccount(t.database.db, { entityId: e1, externalAccountId: 'PAGE-R1', channelTypeCode: 'social_messenger' });
  await makeChannelAccount(t.database.db, { entityId: e2, externalAccountId: 'PN-R2' });
  manager = await tokenFor(t.app, await makeMember(t.database.db, { entityId: e1, codes: ['reports.view', 'cartera.seller_assignment'] }));
  for (let i = 0; i < 2; i++) {
    const member = await makeMember(t.database.db, { entityId: e1, codes: ['cartera.seller_assignment'] });
    agents.push({ member, token: await tokenFor(t.app, member) });
  }
  // Sees everything, answers only their own: answering an unassigned conversation claims it.
  const claimer = await makeMember(t.database.db, { entityId: e1, conversations: 'restricted', codes: ['conversations.view_all'] });
  restricted = { member: claimer, token: await tokenFor(t.app, claimer) };
  otherEntity = await tokenFor(t.app, await makeMember(t.database.db, { entityId: e2, codes: ['reports.view'] }));
  labeller = await tokenFor(t.app, await makeMember(t.database.db, { entityId: e1, codes: ['labels.manage', 'contacts.edit', 'leads.edit'] }));
  otherLabeller = await tokenFor(t.app, await makeMember(t.database.db, { entityId: e2, codes: ['labels.manage', 'reports.view'] }));
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

describe('conversation reports over a randomized history', () => {
  const convs: Conv[] = [];
  /** The assignee after each message was recorded or sent, by message id (what the API showed then). */
  const assigneeAtMessage = new Map<number, number | null>();

  it('replays a seeded history through the API', async () => {
    const seed = Number(process.env.REPORTS_SEED ?? 0x5eed31);
    const random = rng(seed);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
    const now = () => Math.floor(Date.now() / 1000);
    // Another entity's traffic, which no report of entity 1 may count.
    await webhook(inboundPayload('chatapp_api', '50277700001', `wamid.${randomBytes(6).toString('hex')}`, now() - 600, { wa: 'PN-R2', page: '' }));

    const inbound = async (c: Omit<Conv, 'id' | 'status' | 'assignee' | 'statusEvents'> & Partial<Conv>, atSeconds: number) => {
      const mid = c.id === undefined ? c.openedBy : `${c.channel === 'chatapp_api' ? 'wamid.' : 'm_'}${randomBytes(8).toString('hex')}`;
      await webhook(inboundPayload(c.channel, c.chat, mid, atSeconds));
      const row = await conversationOf(c.chat);
      const history = (await get(`/interactions/conversations/${row.id as number}/history?limit=200`)).json().data as Row[];
      const m = history.find((h) => h.external_message_id === mid)!;
      assigneeAtMessage.set(m.id as number, assigneeOf(row));
      return row;
    };

    for (let step = 0; step < 60; step++) {
      const roll = random();
      if (convs.length < 3 || roll < 0.2) {
        const channel = pick(['chatapp_api', 'social_messenger'] as const);
        const chat = channel === 'chatapp_api' ? `5025${String(Math.floor(random() * 1e7)).padStart(7, '0')}` : `PSID-${randomBytes(4).toString('hex')}`;
        const openedBy = `${channel === 'chatapp_api' ? 'wamid.' : 'm_'}${randomBytes(8).toString('hex')}`;
        // Opened up to two hours ago: first responses and resolutions take a measurable time.
        const row = await inbound({ chat, channel, openedBy }, now() - 60 - Math.floor(random() * 7200));
        convs.push({ chat, channel, openedBy, id: row.id as number, status: row.status as string, assignee: assigneeOf(row), statusEvents: [] });
        continue;
      }
      const c = pick(convs);
      const before = c.status;
      const action = pick(['inbound', 'send', 'send', 'claim', 'assign', 'resolve', 'reopen', 'pending', 'snooze'] as const);
      let after: Row;
      if (action === 'inbound') {
        after = await inbound(c, now());
      } else if (action === 'send' || action === 'claim') {
        const sender = action === 'claim' ? restricted : pick(agents);
        const res = await post(`/interactions/conversations/${c.id}/messages/text`, sender.token, { body: 'hola' });
        after = await detail(c.id);
        if (res.statusCode !== 202) {
          // Someone else's conversation: the restricted agent may not answer it (nothing stored, nothing logged).
          expect([403, 404, 409], res.body).toContain(res.statusCode);
          continue;
        }
        assigneeAtMessage.set(res.json().id as number, assigneeOf(after));
      } else if (action === 'assign') {
        const to = pick([...agents.map((a) => a.member), restricted.member]);
        const res = await post(`/interactions/conversations/${c.id}/assign`, manager, { employee_id: to.employeeId });
        expect(res.statusCode).toBe(200);
        after = res.json();
      } else {
        const res =
          action === 'snooze'
            ? await post(`/interactions/conversations/${c.id}/snooze`, manager, { until: new Date(Date.now() + 3_600_000).toISOString() })
            : await post(`/interactions/conversations/${c.id}/${action}`, manager);
        if (res.statusCode === 409) continue;
        expect(res.statusCode, res.body).toBe(200);
        after = res.json();
      }
      c.assignee = assigneeOf(after);
      c.status = after.status as string;
      const kind = c.status === 'resolved' && before !== 'resolved' ? 'resolved' : c.status === 'open' && before === 'resolved' ? 'reopened' : null;
      if (kind !== null) c.statusEvents.push({ kind, at: ms(after.status_changed_at), agent: c.assignee, channel: c.channel, conversation: c.id });
    }
    expect(convs.length).toBeGreaterThanOrEqual(3);
  });

  /** Every counted event of entity 1, recomputed from the API's messages and the statuses seen after each step. */
  async function expectedEvents(): Promise<Expected[]> {
    const out: Expected[] = [];
    for (const c of convs) {
      const history = ((await get(`/interactions/conversations/${c.id}/history?limit=200`)).json().data as Row[]).reverse();
      const opening = history.find((m) => m.external_message_id === c.openedBy)!;
      const openedAt = ms(opening.occurred_at);
      out.push({ kind: 'opened', at: openedAt, agent: assigneeAtMessage.get(opening.id as number)!, channel: c.channel, conversation: c.id });
      for (const m of history) {
        out.push({
          kind: m.direction === 'inbound' ? 'message_in' : 'message_out',
          at: ms(m.occurred_at),
          agent: assigneeAtMessage.get(m.id as number)!,
          channel: c.channel,
          conversation: c.id,
        });
      }
      const first = history
        .filter((m) => m.direction === 'outbound' && m.sent_by_employee_id !== null)
        .sort((a, b) => ms(a.occurred_at) - ms(b.occurred_at))[0];
      if (first) {
        out.push({
          kind: 'first_response',
          at: ms(first.occurred_at),
          agent: assigneeAtMessage.get(first.id as number)!,
          channel: c.channel,
          conversation: c.id,
          seconds: Math.max(0, (ms(first.occurred_at) - openedAt) / 1000),
        });
      }
      let since = openedAt;
      for (const s of c.statusEvents) {
        if (s.kind === 'reopened') since = s.at;
        out.push(s.kind === 'resolved' ? { ...s, seconds: Math.max(0, (s.at - since) / 1000) } : s);
      }
    }
    return out;
  }

  it('equals the brute force for every grouping', async () => {
    const events = await expectedEvents();
    const from = DateTime.now().setZone(TZ).minus({ days: 1 }).toISODate()!;
    // Twice: computed, then (yesterday, once closed) from the kept days.
    for (const group of ['none', 'agent', 'queue', 'channel', 'none', 'agent', 'queue', 'channel'] as const) {
      const res = await get(`/interactions/reports/daily?from=${from}&to=${today()}${group === 'none' ? '' : `&group_by=${group}`}`);
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json();
      expect(body).toMatchObject({ time_zone: TZ, from, to: today(), group_by: group === 'none' ? null : group });
      expectRows(body.rows, bruteForce(events, group), group);
    }
    // The history did produce what the report measures.
    const totals = bruteForce(events, 'none');
    expect(totals.reduce((n, r) => n + (r.messages_out as number), 0)).toBeGreaterThan(0);
  });

  it("keeps the slot counts equal to the log's aggregate, through inserts and deletions", async () => {
    // The reports sum conversation_activity_slot; the triggers on the log must keep it equal to the log.
    const logged = sql`select entity_id, slot, assignee_employee_id, queue_id, channel_type_code,
        count(*) filter (where kind = 'opened')::int as opened, count(*) filter (where kind = 'resolved')::int as resolved,
        count(*) filter (where kind = 'reopened')::int as reopened, count(*) filter (where kind = 'message_in')::int as messages_in,
        count(*) filter (where kind = 'message_out')::int as messages_out
      from (select *, date_bin('15 minutes', at, timestamptz '1970-01-01 00:00:00+00') as slot from conversation_event where entity_id = ${e1}) e
      where kind in ('opened', 'resolved', 'reopened', 'message_in', 'message_out')
      group by 1, 2, 3, 4, 5 order by 1, 2, 3 nulls first, 4 nulls first, 5`;
    // Summed over the writing sessions' shards, as the reports read them.
    const counted = sql`select entity_id, slot, assignee_employee_id, queue_id, channel_type_code,
        sum(opened)::int as opened, sum(resolved)::int as resolved, sum(reopened)::int as reopened,
        sum(messages_in)::int as messages_in, sum(messages_out)::int as messages_out
      from conversation_activity_slot where entity_id = ${e1}
      group by 1, 2, 3, 4, 5 having sum(opened + resolved + reopened + messages_in + messages_out) > 0
      order by 1, 2, 3 nulls first, 4 nulls first, 5`;
    const db = t.database.db;
    const before = await queryRows<Row>(db, logged);
    expect(before.length).toBeGreaterThan(0);
    expect(await queryRows<Row>(db, counted)).toEqual(before);
    // A conversation's deletion cascades to its events (the log is otherwise never changed): its counts go too.
    await db
      .transaction(async (tx) => {
        await tx.execute(sql`delete from conversation_event where conversation_id = ${convs[0]!.id}`);
        expect(await queryRows<Row>(tx, counted)).toEqual(await queryRows<Row>(tx, logged));
        tx.rollback();
      })
      .catch((err: unknown) => {
        if (!(err instanceof Error && err.message === 'Rollback')) throw err;
      });
    expect(await queryRows<Row>(db, counted)).toEqual(before);
  });

  it('shows an agent without reports.view only their own rows', async () => {
    const events = await expectedEvents();
    const from = DateTime.now().setZone(TZ).minus({ days: 1 }).toISODate()!;
    for (const a of [...agents, restricted]) {
      const res = await get(`/interactions/reports/daily?from=${from}&to=${today()}`, a.token);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().group_by).toBe('agent');
      expectRows(
        res.json().rows,
        bruteForce(
          events.filter((e) => e.agent === a.member.employeeId),
          'agent',
        ),
        `agent ${a.member.employeeId}`,
      );
      expect((await get(`/interactions/reports/daily?from=${from}&to=${today()}&group_by=agent`, a.token)).json().rows).toEqual(res.json().rows);
      for (const group of ['queue', 'channel']) {
        const denied = await get(`/interactions/reports/daily?from=${from}&to=${today()}&group_by=${group}`, a.token);
        expect(denied.statusCode).toBe(403);
        expect(denied.json()).toMatchObject({ code: 'permission_denied', permission: 'reports.view' });
      }
    }
  });

  /** Labels A, B, C of entity 1 (D is put on and taken off later); X is entity 2's. */
  const label: Record<'A' | 'B' | 'C' | 'D' | 'X', number> = { A: 0, B: 0, C: 0, D: 0, X: 0 };
  describe('by label', () => {
    const labelsOf = new Map<number, number[]>();
    const newLabel = async (name: string, token = labeller) => {
      const res = await post('/labels', token, { name, color: '#2f80ed' });
      expect(res.statusCode, res.body).toBe(201);
      return res.json().id as number;
    };
    const put = async (url: string, ids: number[], token = labeller) => {
      const res = await post(url, token, { label_ids: ids });
      expect(res.statusCode, res.body).toBe(200);
    };
    const labelQuery = (ids: number[]) => ids.map((id) => `label=${id}`).join('&');
    const from = () => DateTime.now().setZone(TZ).minus({ days: 1 }).toISODate()!;
    const report = (query: string, token = manager) => get(`/interactions/reports/daily?from=${from()}&to=${today()}&${query}`, token);
    /** Every conversation's labels as the API shows them now. */
    const readLabels = async () => {
      for (const c of convs)
        labelsOf.set(
          c.id,
          ((await detail(c.id)).labels as { id: number }[]).map((l) => l.id),
        );
    };

    it('labels conversations, their contacts and their leads', async () => {
      for (const name of ['A', 'B', 'C', 'D'] as const) label[name] = await newLabel(`Report ${name}`);
      label.X = await newLabel('Report X', otherLabeller);
      // The first conversation carries A itself and B through its contact: it counts in both rows.
      for (const [i, c] of convs.entries()) {
        const row = await detail(c.id);
        if (i % 3 === 0) await put(`/interactions/conversations/${c.id}/labels`, [label.A]);
        if (i % 4 === 0 || i % 4 === 1) await put(`/contacts/${row.contact_id as number}/labels`, [label.B]);
        if (i % 5 === 2) await put(`/leads/${row.lead_id as number}/labels`, [label.C, label.A]);
      }
      await readLabels();
      expect(labelsOf.get(convs[0]!.id)).toEqual([label.A, label.B].sort((a, b) => a - b));
      expect([...labelsOf.values()].some((ids) => ids.length === 0)).toBe(true);
      // Entity 2's only conversation carries X.
      const theirs = (await get('/interactions/conversations?q=50277700001', otherLabeller)).json().data as Row[];
      await put(`/interactions/conversations/${theirs[0]!.id as number}/labels`, [label.X], otherLabeller);
    });

    it('gives a row per day and label that equals the brute force, a conversation with two labels in both', async () => {
      const events = await expectedEvents();
      const res = await report('group_by=label');
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ time_zone: TZ, from: from(), to: today(), group_by: 'label' });
      const rows = res.json().rows as Row[];
      expectRows(rows, bruteForce(events, 'label', { labelsOf }), 'label');
      expect(new Set(rows.map((r) => r.label_id))).toEqual(new Set([label.A, label.B, label.C]));
      // A and B's rows together count the conversations carrying both twice; filtered by A or B, each once.
      const opened = (rs: Row[]) => rs.reduce((n, r) => n + (r.conversations_opened as number), 0);
      const both = convs.filter((c) => [label.A, label.B].every((l) => labelsOf.get(c.id)!.includes(l))).length;
      expect(both).toBeGreaterThan(0);
      const either = (await report(labelQuery([label.A, label.B]))).json().rows as Row[];
      expect(opened(rows.filter((r) => r.label_id !== label.C))).toBe(opened(either) + both);
    });

    it("filters every grouping by label (any of), and keeps only the asked labels' rows by label", async () => {
      const events = await expectedEvents();
      for (const anyOf of [[label.A], [label.B, label.C], [label.D]])
        for (const group of ['none', 'agent', 'queue', 'channel', 'label'] as const) {
          const res = await report(`${labelQuery(anyOf)}${group === 'none' ? '' : `&group_by=${group}`}`);
          expect(res.statusCode, res.body).toBe(200);
          expect(res.json().group_by).toBe(group === 'none' ? null : group);
          expectRows(res.json().rows, bruteForce(events, group, { labelsOf, anyOf }), `${group} ${anyOf.join(',')}`);
        }
      // Every labelled conversation, each once: the ungrouped report less the unlabelled conversations' events.
      const all = (await report(labelQuery([label.A, label.B, label.C]))).json().rows as Row[];
      const labelled = events.filter((e) => labelsOf.get(e.conversation)!.length > 0);
      expectRows(all, bruteForce(labelled, 'none'), 'every label');
    });

    it('counts a conversation under the labels it carries now, on past days too (label reports are not kept)', async () => {
      // A conversation of two days ago, whose day the plain report keeps before it is labelled.
      const d2 = DateTime.now().setZone(TZ).minus({ days: 2 }).startOf('day');
      const chat = '50293000001';
      await webhook(inboundPayload('chatapp_api', chat, `wamid.lbl${randomBytes(6).toString('hex')}`, Math.floor(d2.plus({ hours: 10 }).toSeconds())));
      const id = (await conversationOf(chat)).id as number;
      const since = `/interactions/reports/daily?from=${d2.toISODate()}&to=${today()}`;
      const plain = (await get(since)).json().rows as Row[];
      expect(plain[0]).toMatchObject({ date: d2.toISODate(), conversations_opened: 1, messages_in: 1 });
      expect((await get(`${since}&group_by=label&${labelQuery([label.D])}`)).json().rows).toEqual([]);
      await put(`/interactions/conversations/${id}/labels`, [label.D]);
      for (const query of [`group_by=label&${labelQuery([label.D])}`, labelQuery([label.D])])
        expect(((await get(`${since}&${query}`)).json().rows as Row[]).map((r) => [r.date, r.label_id ?? null, r.conversations_opened, r.messages_in])).toEqual(
          [[d2.toISODate(), query.startsWith('group_by') ? label.D : null, 1, 1]],
        );
      // The plain report's kept day is as it was; taking the label off empties the label's rows at once.
      expect((await get(since)).json().rows).toEqual(plain);
      const off = await t.app.inject({ method: 'DELETE', url: `/interactions/conversations/${id}/labels/${label.D}`, headers: bearer(labeller) });
      expect(off.statusCode, off.body).toBe(200);
      expect((await get(`${since}&group_by=label&${labelQuery([label.D])}`)).json().rows).toEqual([]);
    });

    it('shows an agent without reports.view their own rows of the labelled conversations, and refuses the label grouping', async () => {
      const events = await expectedEvents();
      for (const a of [...agents, restricted]) {
        const res = await report(labelQuery([label.A, label.B]), a.token);
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json().group_by).toBe('agent');
        const own = events.filter((e) => e.agent === a.member.employeeId);
        expectRows(res.json().rows, bruteForce(own, 'agent', { labelsOf, anyOf: [label.A, label.B] }), `agent ${a.member.employeeId}`);
        for (const path of ['daily', 'daily.csv']) {
          const denied = await get(`/interactions/reports/${path}?from=${from()}&to=${today()}&group_by=label`, a.token);
          expect(denied.statusCode).toBe(403);
          expect(denied.json()).toMatchObject({ code: 'permission_denied', permission: 'reports.view' });
        }
      }
    });

    it("matches nothing with another entity's label, and shows each entity only its own labels", async () => {
      for (const query of [labelQuery([label.X]), `group_by=label&${labelQuery([label.X])}`, `group_by=agent&${labelQuery([label.X])}`]) {
        const res = await report(query);
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json().rows).toEqual([]);
      }
      const theirs = (await report('group_by=label', otherEntity)).json().rows as Row[];
      expect(theirs.map((r) => [r.label_id, r.conversations_opened, r.messages_in])).toEqual([[label.X, 1, 1]]);
      expect((await report(`group_by=label&${labelQuery([label.A, label.B, label.C])}`, otherEntity)).json().rows).toEqual([]);
    });

    it('refuses a label that is not an id, repeated or more than 20', async () => {
      for (const query of ['label=0', 'label=abc', `label=${label.A}&label=${label.A}`, labelQuery(Array.from({ length: 21 }, (_, i) => i + 1))]) {
        const res = await report(query);
        expect(res.statusCode, query).toBe(400);
        expect(res.json().code, query).toBe('validation_failed');
      }
    });

    it('downloads the label rows as CSV and xlsx, with a label_id column', async () => {
      const query = `from=${from()}&to=${today()}&group_by=label&${labelQuery([label.A, label.C])}`;
      const rows = (await get(`/interactions/reports/daily?${query}`)).json().rows as Row[];
      expect(rows.length).toBeGreaterThan(0);
      const columns = ['date', 'label_id', 'conversations_opened', 'conversations_resolved', 'conversations_reopened'];
      columns.push('first_response_median_seconds', 'first_response_p90_seconds', 'resolution_median_seconds', 'resolution_p90_seconds');
      columns.push('sla_achievement_pct', 'messages_in', 'messages_out');
      const csv = await get(`/interactions/reports/daily.csv?${query}`);
      expect(csv.statusCode).toBe(200);
      const lines = csv.body.split('\r\n');
      expect(lines.pop()).toBe('');
      expect(lines[0]).toBe(columns.join(','));
      expect(lines.slice(1)).toEqual(rows.map((r) => columns.map((c) => (r[c] === null ? '' : String(r[c] as string | number))).join(',')));
      const xlsx = await get(`/interactions/reports/daily.xlsx?${query}`);
      expect(xlsx.statusCode).toBe(200);
      const workbook = new ExcelJS.Workbook();
      await workbook.xlsx.load(xlsx.rawPayload as unknown as ArrayBuffer);
      const sheet = workbook.getWorksheet('Report')!;
      expect((sheet.getRow(1).values as unknown[]).slice(1)).toEqual(columns);
      rows.forEach((r, i) => columns.forEach((c, j) => expect((sheet.getRow(i + 2).values as unknown[])[j + 1] ?? null, `${i} ${c}`).toEqual(r[c])));
    });
  });

  it("keeps each entity's report to its own events", async () => {
    const res = await get(`/interactions/reports/daily?from=${DateTime.now().setZone(TZ).minus({ days: 1 }).toISODate()}&to=${today()}`, otherEntity);
    const rows = res.json().rows as Row[];
    expect(rows.reduce((n, r) => n + (r.conversations_opened as number), 0)).toBe(1);
    expect(rows.reduce((n, r) => n + (r.messages_in as number), 0)).toBe(1);
    const logged = await t.database.db.select({ kind: conversationEvent.kind }).from(conversationEvent).where(eq(conversationEvent.entityId, e2));
    expect(logged.map((e) => e.kind).sort()).toEqual(['message_in', 'opened']);
  });

  it('logs a first response once, and nothing for a refused send', async () => {
    const c = convs[0]!;
    const kinds = async () =>
      (await t.database.db.select({ kind: conversationEvent.kind }).from(conversationEvent).where(eq(conversationEvent.conversationId, c.id))).reduce<
        Record<string, number>
      >((o, r) => ({ ...o, [r.kind]: (o[r.kind] ?? 0) + 1 }), {});
    if (c.status === 'resolved') expect((await post(`/interactions/conversations/${c.id}/reopen`, manager)).statusCode).toBe(200);
    await post(`/interactions/conversations/${c.id}/assign`, manager, { employee_id: agents[0]!.member.employeeId });
    expect((await post(`/interactions/conversations/${c.id}/messages/text`, agents[0]!.token, { body: 'uno' })).statusCode).toBe(202);
    expect((await post(`/interactions/conversations/${c.id}/messages/text`, agents[1]!.token, { body: 'dos' })).statusCode).toBe(202);
    const before = await kinds();
    expect(before.first_response).toBe(1);
    expect(before.opened).toBe(1);
    // Assigned to another: the restricted agent's send is refused and its transaction logs nothing.
    const refused = await post(`/interactions/conversations/${c.id}/messages/text`, restricted.token, { body: 'tres' });
    expect(refused.statusCode).toBeGreaterThanOrEqual(400);
    expect(await kinds()).toEqual(before);
  });

  it('computes SLA achievement from sla_policy_applied and sla_breached events, null without them', async () => {
    const noSla = (await get(`/interactions/reports/daily?from=${today()}&to=${today()}`)).json().rows as Row[];
    expect(noSla.every((r) => r.sla_achievement_pct === null)).toBe(true);
    // Three conversations under a policy, each resolved now; one breached its first response target.
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) {
      const chat = `5026${String(i).padStart(7, '0')}`;
      await webhook(inboundPayload('chatapp_api', chat, `wamid.sla${i}${randomBytes(4).toString('hex')}`, Math.floor(Date.now() / 1000) - 30));
      const id = (await conversationOf(chat)).id as number;
      ids.push(id);
      await t.database.db.execute(sql`insert into conversation_event (entity_id, conversation_id, kind, at, channel_type_code, data)
        values (${e1}, ${id}, 'sla_policy_applied', now() - interval '20 seconds', 'chatapp_api', '{"policy_id": 1}')`);
      if (i === 0)
        await t.database.db.execute(sql`insert into conversation_event (entity_id, conversation_id, kind, at, channel_type_code, data)
          values (${e1}, ${id}, 'sla_breached', now() - interval '10 seconds', 'chatapp_api', '{"metric": "first_response"}')`);
      expect((await post(`/interactions/conversations/${id}/resolve`, manager)).statusCode).toBe(200);
    }
    const rows = (await get(`/interactions/reports/daily?from=${today()}&to=${today()}&group_by=channel`)).json().rows as Row[];
    const wa = rows.find((r) => r.channel === 'chatapp_api')!;
    expect(wa.sla_achievement_pct).toBeCloseTo(66.67, 2);
    expect(rows.find((r) => r.channel === 'social_messenger')?.sla_achievement_pct ?? null).toBeNull();
    // By label, from the labelled conversations' events: two of them carry A, the breached one among them.
    for (const id of ids.slice(0, 2)) expect((await post(`/interactions/conversations/${id}/labels`, labeller, { label_ids: [label.A] })).statusCode).toBe(200);
    const byLabel = (await get(`/interactions/reports/daily?from=${today()}&to=${today()}&group_by=label&label=${label.A}`)).json().rows as Row[];
    expect(byLabel.map((r) => [r.label_id, r.sla_achievement_pct])).toEqual([[label.A, 50]]);
  });

  it('downloads the same rows as CSV and xlsx', async () => {
    const from = DateTime.now().setZone(TZ).minus({ days: 1 }).toISODate()!;
    const query = `from=${from}&to=${today()}&group_by=agent`;
    const rows = (await get(`/interactions/reports/daily?${query}`)).json().rows as Row[];
    const columns = [
      'date',
      'agent_id',
      'conversations_opened',
      'conversations_resolved',
      'conversations_reopened',
      'first_response_median_seconds',
      'first_response_p90_seconds',
      'resolution_median_seconds',
      'resolution_p90_seconds',
      'sla_achievement_pct',
      'messages_in',
      'messages_out',
    ];
    const csv = await get(`/interactions/reports/daily.csv?${query}`);
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    expect(csv.headers['content-disposition']).toContain('attachment');
    const lines = csv.body.split('\r\n');
    expect(lines.pop()).toBe('');
    expect(lines[0]).toBe(columns.join(','));
    expect(lines.slice(1)).toEqual(rows.map((r) => columns.map((c) => (r[c] === null ? '' : String(r[c] as string | number))).join(',')));

    const xlsx = await get(`/interactions/reports/daily.xlsx?${query}`);
    expect(xlsx.statusCode).toBe(200);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(xlsx.rawPayload as unknown as ArrayBuffer);
    const sheet = workbook.getWorksheet('Report')!;
    expect((sheet.getRow(1).values as unknown[]).slice(1)).toEqual(columns);
    expect(sheet.rowCount).toBe(rows.length + 1);
    rows.forEach((r, i) => {
      const values = sheet.getRow(i + 2).values as unknown[];
      columns.forEach((c, j) => expect(values[j + 1] ?? null, `${i} ${c}`).toEqual(r[c]));
    });
    // The restricted agent downloads their own rows only; another grouping is refused before anything streams.
    expect((await get(`/interactions/reports/daily.csv?from=${from}&to=${today()}&group_by=queue`, agents[0]!.token)).statusCode).toBe(403);
  });
});

describe('report days', () => {
  it("counts each event on its local day in the entity's time zone, across a DST change", async () => {
    const e3 = (await makeEntity(t.database.db, 'New York')).id;
    await t.database.db.execute(sql`update entity set time_zone = 'America/New_York' where id = ${e3}`);
    await makeChannelAccount(t.database.db, { entityId: e3, externalAccountId: 'PN-NY' });
    const token = await tokenFor(t.app, await makeMember(t.database.db, { entityId: e3, codes: ['reports.view'] }));
    // 2025-03-09 is 23 hours long in New York (02:00 → 03:00).
    const at = (local: string) => DateTime.fromISO(local, { zone: 'America/New_York' }).toSeconds();
    const times = ['2025-03-08T23:59:59', '2025-03-09T00:00:00', '2025-03-09T01:30:00', '2025-03-09T23:59:59', '2025-03-10T00:00:00'];
    for (const [i, local] of times.entries())
      await webhook(
        inboundPayload('chatapp_api', `5027${String(i).padStart(7, '0')}`, `wamid.day${i}${randomBytes(4).toString('hex')}`, at(local), {
          wa: 'PN-NY',
          page: '',
        }),
      );
    const res = await get('/interactions/reports/daily?from=2025-03-08&to=2025-03-10', token);
    expect(res.statusCode).toBe(200);
    expect(res.json().time_zone).toBe('America/New_York');
    expect((res.json().rows as Row[]).map((r) => [r.date, r.conversations_opened, r.messages_in])).toEqual([
      ['2025-03-08', 1, 1],
      ['2025-03-09', 3, 3],
      ['2025-03-10', 1, 1],
    ]);
    const one = (await get('/interactions/reports/daily?from=2025-03-09&to=2025-03-09', token)).json().rows as Row[];
    expect(one.map((r) => r.date)).toEqual(['2025-03-09']);
  });

  it('counts exactly at the midnights of zones 45 minutes off the hour (the counts are 15-minute slots)', async () => {
    const e4 = (await makeEntity(t.database.db, 'Kathmandu')).id;
    await t.database.db.execute(sql`update entity set time_zone = 'Asia/Kathmandu' where id = ${e4}`);
    await makeChannelAccount(t.database.db, { entityId: e4, externalAccountId: 'PN-KTM' });
    const token = await tokenFor(t.app, await makeMember(t.database.db, { entityId: e4, codes: ['reports.view'] }));
    // Kathmandu is UTC+05:45: its midnight is 18:15 UTC, inside an hour and on a 15-minute slot's edge.
    const at = (local: string) => DateTime.fromISO(local, { zone: 'Asia/Kathmandu' }).toSeconds();
    const times = ['2025-06-01T23:44:59', '2025-06-01T23:45:00', '2025-06-01T23:59:59', '2025-06-02T00:00:00', '2025-06-02T00:14:59'];
    for (const [i, local] of times.entries())
      await webhook(
        inboundPayload('chatapp_api', `5028${String(i).padStart(7, '0')}`, `wamid.ktm${i}${randomBytes(4).toString('hex')}`, at(local), {
          wa: 'PN-KTM',
          page: '',
        }),
      );
    const res = await get('/interactions/reports/daily?from=2025-06-01&to=2025-06-02', token);
    expect(res.statusCode).toBe(200);
    expect((res.json().rows as Row[]).map((r) => [r.date, r.conversations_opened, r.messages_in])).toEqual([
      ['2025-06-01', 3, 3],
      ['2025-06-02', 2, 2],
    ]);
    const second = (await get('/interactions/reports/daily?from=2025-06-02&to=2025-06-02', token)).json().rows as Row[];
    expect(second.map((r) => [r.date, r.messages_in])).toEqual([['2025-06-02', 2]]);
  });

  it("keeps closed days, and forgets an entity's kept days from its first late event on", async () => {
    const e5 = (await makeEntity(t.database.db, 'Late events')).id;
    await t.database.db.execute(sql`update entity set time_zone = ${TZ} where id = ${e5}`);
    await makeChannelAccount(t.database.db, { entityId: e5, externalAccountId: 'PN-LATE' });
    const token = await tokenFor(t.app, await makeMember(t.database.db, { entityId: e5, codes: ['reports.view'] }));
    const dayAgo = (n: number) => DateTime.now().setZone(TZ).minus({ days: n }).startOf('day');
    const [d3, d2] = [dayAgo(3).toISODate()!, dayAgo(2).toISODate()!];
    const inbound = (chat: string, at: DateTime) =>
      webhook(inboundPayload('chatapp_api', chat, `wamid.late${randomBytes(6).toString('hex')}`, Math.floor(at.toSeconds()), { wa: 'PN-LATE', page: '' }));
    const report = async () =>
      ((await get(`/interactions/reports/daily?from=${d3}&to=${today()}`, token)).json().rows as Row[]).map((r) => [
        r.date,
        r.conversations_opened,
        r.messages_in,
      ]);
    const kept = async () =>
      (
        await queryRows<{ day: string }>(
          t.database.db,
          sql`select to_char(day, 'YYYY-MM-DD') as day from conversation_report_day where entity_id = ${e5} order by day`,
        )
      ).map((r) => r.day);

    await inbound('50291000001', dayAgo(3).plus({ hours: 10 }));
    await inbound('50291000002', dayAgo(2).plus({ hours: 10 }));
    expect(await kept()).toEqual([]);
    expect(await report()).toEqual([
      [d3, 1, 1],
      [d2, 1, 1],
    ]);
    // The closed days are kept (yesterday too, unless it ended less than 10 minutes ago); today never is.
    expect(await kept()).toEqual(expect.arrayContaining([d3, d2]));
    expect(await kept()).not.toContain(today());
    const keptBefore = await kept();

    // An event of now changes no closed day: the kept days stay.
    await inbound('50291000003', DateTime.now());
    expect(await kept()).toEqual(keptBefore);
    expect((await report()).at(-1)).toEqual([today(), 1, 1]);

    // A late one (a webhook of three days ago) forgets every kept day from its own on; the next report counts it.
    await inbound('50291000001', dayAgo(3).plus({ hours: 11 }));
    expect(await kept()).toEqual([]);
    expect(await report()).toEqual([
      [d3, 1, 2],
      [d2, 1, 1],
      [today(), 1, 1],
    ]);
    expect(await kept()).toEqual(keptBefore);
  });

  // Two connections at once: PostgreSQL only.
  it.runIf(process.env.TEST_DATABASE_URL)('waits, while keeping days, for a late event being written, and counts it', async () => {
    const e6 = (await makeEntity(t.database.db, 'Late writer')).id;
    await t.database.db.execute(sql`update entity set time_zone = ${TZ} where id = ${e6}`);
    await makeChannelAccount(t.database.db, { entityId: e6, externalAccountId: 'PN-LATE-2' });
    const token = await tokenFor(t.app, await makeMember(t.database.db, { entityId: e6, codes: ['reports.view'] }));
    const d3 = DateTime.now().setZone(TZ).minus({ days: 3 }).startOf('day');
    await webhook(
      inboundPayload('chatapp_api', '50292000001', `wamid.lw${randomBytes(6).toString('hex')}`, Math.floor(d3.plus({ hours: 9 }).toSeconds()), {
        wa: 'PN-LATE-2',
        page: '',
      }),
    );
    const [conv] = await queryRows<{ id: number }>(t.database.db, sql`select id from conversation where entity_id = ${e6}`);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let written!: () => void;
    const insertDone = new Promise<void>((resolve) => (written = resolve));
    // A late event written and not yet committed while the report runs.
    const writer = t.database.db.transaction(async (tx) => {
      await tx
        .insert(conversationEvent)
        .values({ entityId: e6, conversationId: conv!.id, kind: 'message_in', at: d3.plus({ hours: 12 }).toJSDate(), channelTypeCode: 'chatapp_api' });
      written();
      await held;
    });
    await insertDone;
    const url = `/interactions/reports/daily?from=${d3.toISODate()}&to=${d3.toISODate()}`;
    const report = get(url, token);
    await new Promise((r) => setTimeout(r, 300));
    release();
    await writer;
    expect(((await report).json().rows as Row[]).map((r) => [r.date, r.messages_in])).toEqual([[d3.toISODate(), 2]]);
    expect(((await get(url, token)).json().rows as Row[]).map((r) => [r.date, r.messages_in])).toEqual([[d3.toISODate(), 2]]);
  });

  it('refuses ranges that are not calendar days, backwards or longer than 366 days', async () => {
    for (const [q, status] of [
      ['from=2025-02-30&to=2025-03-01', 422],
      ['from=2025-03-02&to=2025-03-01', 422],
      ['from=2024-01-01&to=2025-01-01', 422],
      ['from=2025-3-1&to=2025-03-01', 400],
      ['to=2025-03-01', 400],
    ] as const) {
      const res = await get(`/interactions/reports/daily?${q}`);
      expect(res.statusCode, q).toBe(status);
      if (status === 422) expect(res.json().code, q).toBe('report_range_invalid');
    }
    expect((await get('/interactions/reports/daily?from=2024-01-01&to=2024-12-31')).statusCode).toBe(200);
  });
});
