/**
 * Conversation visibility at scale (issue 30): one entity with BENCH_VIS_CONVERSATIONS (default 100,000)
 * conversations over 10,000 leads and 50 agents in 5 routing queues (a third assigned, a third waiting in a
 * queue, a third unassigned; every lead has one agent as its seller).
 * 1. `GET /interactions/conversations?limit=25` p99 for a restricted agent (no `conversations.view_all`:
 *    own, queues' waiting and leads' conversations) and its tab counts (`/conversations/counts`), each against
 *    a `view_all` member's list on the same data.
 * 2. Realtime fan-out of one conversation event: 50 restricted agents' sockets (each in its employee, queue and
 *    lead rooms) plus 5 managers with `view_all`, the event addressed to its assignee, queue and lead rooms,
 *    against today's entity-room broadcast to the same 55 sockets; time from emit until every socket meant to
 *    hear it did. Targets: every p99 ratio ≤ 1.5.
 */
import { sql } from 'drizzle-orm';
import { io, type Socket } from 'socket.io-client';
import { queryRows } from '../src/db/client.js';
import { claimsFor } from '../src/modules/auth/auth.service.js';
import { createDirectoryService } from '../src/modules/identity/index.js';
import { rebuildLeadSellers } from '../src/modules/records/index.js';
import { measure, percentile, SMOKE, startServer, table, type BenchSection } from './lib.js';

const CONVERSATIONS = Number(process.env.BENCH_VIS_CONVERSATIONS ?? 100_000);
const AGENTS = SMOKE ? 10 : 50;
const QUEUES = 5;
const LEADS = SMOKE ? 100 : 10_000;
const MANAGERS = 5;
const EMITS = SMOKE ? 10 : 200;
const TARGET_RATIO = 1.5;

export async function run(): Promise<BenchSection> {
  const server = await startServer();
  const { app } = server;
  const db = server.database.db;
  const sockets: Socket[] = [];
  try {
    const started = performance.now();
    const dir = createDirectoryService(db);
    const e = (await dir.ensureEntity({ name: 'Bench Visibility' })).id;
    const restrictedRole = await dir.ensureRole({ entityId: e, name: 'agent', permissions: ['leads.view'] });
    const managerRole = await dir.ensureRole({ entityId: e, name: 'manager', permissions: ['conversations.view_all', 'conversations.reply_any'] });
    const member = async (name: string, roleId: number) => {
      const user = await dir.upsertUser({ email: `${name}-${Date.now()}@bench.example.com`, name, password: 'bench-password' });
      const employee = await dir.ensureEmployee({ userId: user.id, entityId: e, name });
      await dir.subscribe({ employeeId: employee.id, entityId: e, roleId });
      const principal = await app.ctx.authenticator.principalFor(user.id, e, 'web');
      return { employeeId: employee.id, token: (await app.ctx.tokens.sign(claimsFor(principal!))).token };
    };
    const agents: { employeeId: number; token: string }[] = [];
    for (let i = 0; i < AGENTS; i++) agents.push(await member(`agent${i}`, restrictedRole.id));
    const managers: { employeeId: number; token: string }[] = [];
    for (let i = 0; i < MANAGERS; i++) managers.push(await member(`manager${i}`, managerRole.id));
    const agentIds = `{${agents.map((a) => a.employeeId).join(',')}}`;

    await db.execute(sql`insert into routing_queue (entity_id, name) select ${e}, 'Queue ' || q from generate_series(1, ${QUEUES}) q`);
    await db.execute(sql`insert into routing_queue_member (entity_id, queue_id, employee_id, position)
      select ${e}, q.id, a.id, a.n from (select id, row_number() over (order by id) as n from routing_queue where entity_id = ${e}) q
      join (select unnest(${agentIds}::int[]) as id, generate_series(0, ${AGENTS - 1}) as n) a on a.n % ${QUEUES} = q.n - 1`);
    await db.execute(sql`insert into entity_channel_account (entity_id, channel_type_code, external_account_id, display_name)
      values (${e}, 'chatapp_api', 'BENCH-VIS', 'Bench')`);
    await db.execute(sql`insert into crm_group (entity_id, name) select ${e}, 'Group ' || g from generate_series(1, ${LEADS}) g`);
    await db.execute(sql`insert into lead (entity_id, group_id, name) select entity_id, id, 'Lead of ' || name from crm_group where entity_id = ${e}`);
    await db.execute(
      sql`insert into contact (entity_id, group_id, lead_id, name) select entity_id, group_id, id, 'Contact of ' || name from lead where entity_id = ${e}`,
    );
    await db.execute(sql`insert into lead_assignment (entity_id, lead_id, employee_id)
      select ${e}, l.id, (${agentIds}::int[])[1 + (l.id % ${AGENTS})] from lead l where l.entity_id = ${e}`);
    await rebuildLeadSellers(db, e);
    await db.execute(sql`insert into conversation (entity_id, entity_channel_account_id, channel_type_code, external_chat_id, contact_id, lead_id, group_id,
        assignment_status, assigned_employee_id, queue_id, last_message_at, last_message_preview)
      select ${e}, (select id from entity_channel_account where entity_id = ${e}), 'chatapp_api', '502' || i, c.id, c.lead_id, c.group_id,
        case i % 3 when 0 then 'assigned' when 1 then 'queued' else 'unassigned' end,
        case when i % 3 = 0 then (${agentIds}::int[])[1 + ((i / 3) % ${AGENTS})] end,
        case when i % 3 = 1 then (select min(id) from routing_queue where entity_id = ${e}) + i % ${QUEUES} end,
        now() - (i || ' seconds')::interval, 'message ' || i
      from generate_series(1, ${CONVERSATIONS}) i
      join contact c on c.entity_id = ${e} and c.id = (select min(id) from contact where entity_id = ${e}) + i % ${LEADS}`);
    // As autovacuum leaves a loaded table: statistics, and the visibility map that index-only scans read.
    await db.execute(sql`vacuum analyze`);
    const seedSeconds = (performance.now() - started) / 1000;

    // 1. The inbox list.
    const url = `${server.baseUrl}/api/interactions/conversations?limit=25`;
    const measured = [
      await measure({
        title: 'GET conversations?limit=25 (view_all)',
        url,
        headers: { authorization: `Bearer ${managers[0]!.token}` },
        connections: 10,
        warmupSeconds: 2,
      }),
      await measure({
        title: 'GET conversations?limit=25 (restricted agent)',
        url,
        headers: { authorization: `Bearer ${agents[7]!.token}` },
        connections: 10,
        warmupSeconds: 2,
      }),
      await measure({
        title: 'GET conversations/counts (restricted agent)',
        url: `${server.baseUrl}/api/interactions/conversations/counts`,
        headers: { authorization: `Bearer ${agents[7]!.token}` },
        connections: 10,
        warmupSeconds: 2,
      }),
    ];
    const listRatio = measured[1]!.p99Ms / measured[0]!.p99Ms;
    const countsRatio = measured[2]!.p99Ms / measured[0]!.p99Ms;

    // 2. Fan-out. The sample conversation: assigned to agent 3, its lead sold by another agent.
    const connect = (token: string) =>
      new Promise<Socket>((resolve, reject) => {
        const socket = io(`${server.baseUrl}/interactions`, { transports: ['websocket'], auth: { token }, forceNew: true, reconnection: false });
        sockets.push(socket);
        socket.once('interaction.ready', () => resolve(socket));
        socket.once('connect_error', reject);
      });
    const agentSockets = await Promise.all(agents.map((a) => connect(a.token)));
    const managerSockets = await Promise.all(managers.map((m) => connect(m.token)));
    const [sample] = await queryRows<{ id: number; lead_id: number; seller: number }>(
      db,
      sql`select c.id, c.lead_id, ls.employee_id as seller from conversation c join lead_seller ls on ls.lead_id = c.lead_id and ls.effective
        where c.entity_id = ${e} and c.assignment_status = 'assigned' and c.assigned_employee_id = ${agents[3]!.employeeId} limit 1`,
    );
    const target = { conversationId: sample!.id, externalChatId: 'x', employeeIds: [agents[3]!.employeeId], queueId: null, leadId: sample!.lead_id };
    const meantFor = [...managerSockets, agentSockets[3]!, agentSockets[agents.findIndex((a) => a.employeeId === sample!.seller)]!];
    const missed = { entity: 0, audience: 0 };
    const fanOut = async (mode: 'entity' | 'audience', recipients: Socket[]) => {
      const times: number[] = [];
      for (let i = 0; i < EMITS; i++) {
        let got = 0;
        const t0 = performance.now();
        const done = new Promise<void>((resolve) => {
          const on = (p: { n: number }) => {
            if (p.n === i && ++got === recipients.length) resolve();
          };
          for (const s of recipients) s.on('interaction.conversation.updated', on);
        });
        const payload = { n: i, conversation: { id: sample!.id } } as never;
        if (mode === 'entity') app.ctx.publisher.toEntity(e, 'interaction.conversation.updated', payload, { conversationId: sample!.id, externalChatId: 'x' });
        else app.ctx.publisher.toEntity(e, 'interaction.conversation.updated', payload, target);
        const late = await Promise.race([done.then(() => false), new Promise<boolean>((r) => setTimeout(() => r(true), 2000))]);
        if (late) {
          missed[mode] += recipients.length - got;
          console.log(`visibility: ${mode} emit ${i} reached ${got} of ${recipients.length} sockets in 2 s`);
          if (missed[mode] > 3 * recipients.length) break;
        } else times.push(performance.now() - t0);
        for (const s of recipients) s.removeAllListeners('interaction.conversation.updated');
      }
      return times;
    };
    console.log(`visibility: seeded in ${seedSeconds.toFixed(1)} s; list ${measured.map((m) => `${m.title} p99 ${m.p99Ms} ms`).join(', ')}`);
    const restricted = await fanOut('audience', [...new Set(meantFor)]);
    // Today's behaviour: every socket in the entity room. Put the agents there too for the baseline.
    for (const s of agentSockets) s.disconnect();
    const allInEntity = await Promise.all(Array.from({ length: AGENTS }, () => connect(managers[0]!.token)));
    const broadcast = await fanOut('entity', [...managerSockets, ...allInEntity]);
    const p99 = { restricted: percentile(restricted, 99), entity: percentile(broadcast, 99) };
    const fanRatio = p99.restricted / p99.entity;
    console.log(
      `visibility: list p99 ratio ${listRatio.toFixed(2)}, counts p99 ratio ${countsRatio.toFixed(2)}, fan-out p99 ratio ${fanRatio.toFixed(2)}, missed ${JSON.stringify(missed)}`,
    );

    return {
      title: `Conversation visibility (${CONVERSATIONS.toLocaleString('en')} conversations, ${AGENTS} agents, ${server.kind})`,
      markdown: [
        `Seeded in ${seedSeconds.toFixed(1)} s.`,
        '',
        table(measured, measured[0]!.title),
        '',
        `Restricted list p99 / view_all list p99: **${listRatio.toFixed(2)}**; restricted tab counts p99 / view_all list p99: **${countsRatio.toFixed(2)}** (target ≤ ${TARGET_RATIO}).`,
        '',
        `| fan-out of one event (${EMITS} emits) | p50 ms | p99 ms |`,
        '|---|---|---|',
        `| entity-room broadcast to ${MANAGERS + AGENTS} sockets (today) | ${percentile(broadcast, 50).toFixed(2)} | ${p99.entity.toFixed(2)} |`,
        `| assignee + queue + lead rooms, ${MANAGERS} view_all sockets + ${AGENTS} restricted | ${percentile(restricted, 50).toFixed(2)} | ${p99.restricted.toFixed(2)} |`,
        '',
        `Audience fan-out p99 / entity broadcast p99: **${fanRatio.toFixed(2)}** (target ≤ ${TARGET_RATIO}).`,
      ].join('\n'),
      checks: [
        { name: 'restricted list p99 ≤ 1.5× view_all list', ok: listRatio <= TARGET_RATIO, detail: listRatio.toFixed(2) },
        { name: 'restricted tab counts p99 ≤ 1.5× view_all list', ok: countsRatio <= TARGET_RATIO, detail: countsRatio.toFixed(2) },
        { name: 'audience fan-out p99 ≤ 1.5× entity broadcast', ok: fanRatio <= TARGET_RATIO, detail: fanRatio.toFixed(2) },
        { name: 'every socket meant to hear an event heard it', integrity: true, ok: missed.entity + missed.audience === 0, detail: JSON.stringify(missed) },
      ],
    };
  } finally {
    for (const s of sockets) s.disconnect();
    await server.close();
  }
}
