/**
 * Child process of sla.bench.ts: the service alone in its own process, as interactions-server.child.ts, and
 * with `BENCH_SLA=1` an entity under SLA: business hours, a default SLA policy, and BENCH_SLA_CONVERSATIONS
 * (default 100,000) open conversations whose clocks run, each with its two pending timers (breach and at risk,
 * 1 to 30 days ahead) in the job queue. Prints one JSON line `{ baseUrl, token, kind, seedSeconds }` when
 * ready and stops on SIGTERM. `POST <control>/off` parks the timers (moved out of the job queue) and
 * deactivates the policy, `POST <control>/on` brings both back, so one warmed process measures both conditions.
 */
import { createServer } from 'node:http';
import { sql } from 'drizzle-orm';
import { startServer } from './lib.js';
import { createDirectoryService } from '../src/modules/identity/index.js';
import { entityChannelAccount } from '../src/modules/interactions/model/entity-channel-account.table.js';
import { claimsFor } from '../src/modules/auth/auth.service.js';
import { QUEUE_SCHEMA } from '../src/db/migrate.js';
import { queryRows } from '../src/db/client.js';

const PNID = 'BENCH-PNID';
const CONVERSATIONS = Number(process.env.BENCH_SLA_CONVERSATIONS ?? 100_000);
const LEADS = Math.min(10_000, CONVERSATIONS);

const server = await startServer({ LOG_LEVEL: 'warn' });
const db = server.database.db;
const dir = createDirectoryService(db);
const entity = await dir.ensureEntity({ name: 'Bench SLA' });
const e = entity.id;
const user = await dir.upsertUser({ email: `bench-sla-${Date.now()}@example.com`, name: 'Bench', password: 'bench-password' });
const employee = await dir.ensureEmployee({ userId: user.id, entityId: e, name: 'Bench' });
// A manager who sees every conversation: the socket joins the entity room.
const role = await dir.ensureRole({ entityId: e, name: 'manager', permissions: ['conversations.view_all', 'conversations.reply_any'] });
await dir.subscribe({ employeeId: employee.id, entityId: e, roleId: role.id });
await db
  .insert(entityChannelAccount)
  .values({ entityId: e, channelTypeCode: 'chatapp_api', externalAccountId: PNID, displayName: 'Bench' })
  .onConflictDoNothing();

const started = performance.now();
if (process.env.BENCH_SLA === '1') {
  const intervals = [1, 2, 3, 4, 5].map((day) => ({ day, start: '08:00', end: '17:00' }));
  const schedule = { timeZone: 'America/Guatemala', intervals, holidays: ['2026-12-25'] };
  await db.execute(sql`insert into business_hours (entity_id, time_zone, intervals, holidays)
    values (${e}, ${schedule.timeZone}, ${JSON.stringify(intervals)}::jsonb, ${JSON.stringify(schedule.holidays)}::jsonb)`);
  const [policy] = await queryRows<{ id: number }>(
    db,
    sql`insert into sla_policy (entity_id, name, first_response_minutes, next_response_minutes, resolution_minutes)
      values (${e}, 'Default', 60, 30, 1440) returning id`,
  );
  const [{ id: account }] = (await queryRows<{ id: number }>(db, sql`select id from entity_channel_account where entity_id = ${e}`)) as [{ id: number }];
  await db.execute(sql`insert into crm_group (entity_id, name) select ${e}, 'Group ' || g from generate_series(1, ${LEADS}) g`);
  await db.execute(sql`insert into lead (entity_id, group_id, name) select entity_id, id, 'Lead of ' || name from crm_group where entity_id = ${e}`);
  await db.execute(
    sql`insert into contact (entity_id, group_id, lead_id, name) select entity_id, group_id, id, 'Contact of ' || name from lead where entity_id = ${e}`,
  );
  // Open conversations whose first response and resolution clocks run, due 1 to 30 days ahead.
  await db.execute(sql`insert into conversation (entity_id, entity_channel_account_id, channel_type_code, external_chat_id, contact_id, lead_id, group_id,
      last_message_at, last_message_preview, last_inbound_at, sla_state)
    select ${e}, ${account}, 'chatapp_api', '503' || i, c.id, c.lead_id, c.group_id, now() - interval '1 minute', 'message ' || i, now() - interval '1 minute',
      jsonb_build_object('policyId', ${policy!.id}::int, 'basis', 'business', 'schedule', ${JSON.stringify(schedule)}::jsonb,
        'targets', jsonb_build_object('first_response', 60, 'next_response', 30, 'resolution', 1440), 'atRiskShare', 0.8,
        'pauseOnPending', true, 'pauseOnSnoozed', true, 'paused', false, 'responded', false, 'breached', false, 'lastCycle', 2,
        'clocks', jsonb_build_object(
          'first_response', jsonb_build_object('cycle', 1, 'startedAt', now(), 'target', 60, 'due', to_char((now() + (1 + i % 30) * interval '1 day') at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
            'atRisk', to_char((now() + (1 + i % 30) * interval '1 day' - interval '12 minutes') at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
            'remaining', null, 'remainingToRisk', null, 'warned', false, 'breached', false),
          'resolution', jsonb_build_object('cycle', 2, 'startedAt', now(), 'target', 1440, 'due', null, 'atRisk', null,
            'remaining', null, 'remainingToRisk', null, 'warned', false, 'breached', false)))
    from generate_series(1, ${CONVERSATIONS}) i
    join contact c on c.entity_id = ${e} and c.id = (select min(id) from contact where entity_id = ${e}) + i % ${LEADS}`);
  // Their pending timers, as the service writes them: one breach and one at-risk job each.
  await db.execute(
    sql.raw(`insert into ${QUEUE_SCHEMA}.job (name, data, start_after, singleton_key, retry_limit, retry_delay, retry_backoff, expire_in, policy)
    select 'interactions.conversation.sla_timer',
           jsonb_build_object('conversationId', c.id, 'metric', 'first_response', 'cycle', 1, 'kind', k.kind, 'at', c.sla_state->'clocks'->'first_response'->>(case k.kind when 'breach' then 'due' else 'atRisk' end)),
           (c.sla_state->'clocks'->'first_response'->>(case k.kind when 'breach' then 'due' else 'atRisk' end))::timestamptz,
           'sla:' || c.id || ':first_response:1:' || k.kind, 5, 1, true, interval '10 seconds', 'short'
      from conversation c cross join (values ('breach'), ('at_risk')) k(kind)
     where c.entity_id = ${e} and c.sla_state is not null`),
  );
  await db.execute(sql`analyze`);
}
const seedSeconds = (performance.now() - started) / 1000;
const TIMERS = `name = 'interactions.conversation.sla_timer' and state = 'created'`;
await db.execute(sql.raw(`create table if not exists bench_parked_jobs (like ${QUEUE_SCHEMA}.job)`));
const control = createServer((req, res) => {
  const on = req.url === '/on';
  const statements = on
    ? [
        `insert into ${QUEUE_SCHEMA}.job select * from bench_parked_jobs`,
        'delete from bench_parked_jobs',
        `update sla_policy set is_active = true where entity_id = ${e}`,
      ]
    : [
        `insert into bench_parked_jobs select * from ${QUEUE_SCHEMA}.job where ${TIMERS}`,
        `delete from ${QUEUE_SCHEMA}.job where ${TIMERS}`,
        `update sla_policy set is_active = false where entity_id = ${e}`,
      ];
  void db
    .transaction(async (tx) => {
      for (const text of statements) await tx.execute(sql.raw(text));
    })
    .then(async () => {
      await db.execute(sql.raw(`analyze ${QUEUE_SCHEMA}.job`));
      res.end('ok');
    });
});
await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve));
const controlAddress = control.address();
const controlUrl = `http://127.0.0.1:${typeof controlAddress === 'object' && controlAddress ? controlAddress.port : 0}`;
const principal = await server.app.ctx.authenticator.principalFor(user.id, e, 'web');
const token = (await server.app.ctx.tokens.sign(claimsFor(principal!))).token;
process.stdout.write(JSON.stringify({ baseUrl: server.baseUrl, token, kind: server.kind, seedSeconds, controlUrl }) + '\n');

process.once('SIGTERM', () => {
  control.close();
  void server.close().then(() => process.exit(0));
});
