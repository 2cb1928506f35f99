/**
 * The conversation event log and the daily reports built on it (issue 31), through the public API: a
 * randomized history (seeded) of inbound messages by webhook, sends, assignments and lifecycle actions, then
 * every report (no grouping, per agent, queue and channel) must equal a brute-force recomputation from what
 * the API shows (each conversation's messages, and the status and assignee after every step). Also: local
 * day boundaries (DST included), tenant isolation, `reports.view` against one's own rows, the SLA column
 * over SLA events, and the CSV and xlsx downloads.
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

/** The report rows `events` make, grouped by `group` (the brute force). */
function bruteForce(events: Expected[], group: 'none' | 'agent' | 'queue' | 'channel', tz = TZ): Row[] {
  const rows = new Map<string, { date: string; key: string | number | null; events: Expected[] }>();
  for (const e of events) {
    const date = DateTime.fromMillis(e.at, { zone: tz }).toISODate()!;
    const key = group === 'agent' ? e.agent : group === 'channel' ? e.channel : null;
    const id = `${date}|${String(key)}`;
    if (!rows.has(id)) rows.set(id, { date, key, events: [] });
    rows.get(id)!.events.push(e);
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
      ...(group === 'agent' ? { agent_id: key } : group === 'queue' ? { queue_id: null } : group === 'channel' ? { channel: key } : {}),
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
      if (kind !== null) c.statusEvents.push({ kind, at: ms(after.status_changed_at), agent: c.assignee, channel: c.channel });
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
      out.push({ kind: 'opened', at: openedAt, agent: assigneeAtMessage.get(opening.id as number)!, channel: c.channel });
      for (const m of history) {
        out.push({
          kind: m.direction === 'inbound' ? 'message_in' : 'message_out',
          at: ms(m.occurred_at),
          agent: assigneeAtMessage.get(m.id as number)!,
          channel: c.channel,
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
