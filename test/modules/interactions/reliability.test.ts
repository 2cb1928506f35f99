import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { resetDatabase } from '../../helpers/test-db.js';
import { makeEntity, makeMember, tokenFor, bearer } from '../../helpers/factories.js';
import { makeChannelAccount } from '../../helpers/conversation-factories.js';
import { DEMO_PHONE_NUMBER_ID } from '../../helpers/platform-payloads.js';
import { whatsAppMessage, whatsAppStatus } from '../../../sim/communications/payloads.js';
import { queryRows } from '../../../src/db/client.js';

let t: TestContext;
const acc = { phoneNumberId: DEMO_PHONE_NUMBER_ID };
const q = async <T>(query: ReturnType<typeof sql>) => queryRows<T>(t.database.db, query);
const post = (payload: unknown) => t.app.inject({ method: 'POST', url: '/api/interactions/webhooks/communications', payload: payload as object });

function shuffle<T>(items: T[], seed = 42): T[] {
  const out = [...items];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

beforeAll(async () => {
  t = await createTestApp({ env: { COMMUNICATIONS_PRIVILEGED_OPERATOR_EMAILS: 'ops@example.com' } });
});
afterAll(async () => t.close());
beforeEach(async () => {
  await t.app.interactionsWorker.idle();
  await resetDatabase(t.database);
  const entity = await makeEntity(t.database.db);
  await makeChannelAccount(t.database.db, { entityId: entity.id, externalAccountId: DEMO_PHONE_NUMBER_ID });
});

describe('inbox reliability', () => {
  it('ends a burst of 2,000 events, a quarter of them repeated, with shuffled statuses, with exact counts', async () => {
    const base = 1_760_000_000;
    const unique: object[] = [];
    // 100 customers x 12 inbound messages, plus 3 statuses of one outbound message each: 1,500 distinct events.
    for (let c = 0; c < 100; c++) {
      const from = `5025550${String(c).padStart(4, '0')}`;
      for (let m = 0; m < 12; m++) unique.push(whatsAppMessage(acc, { from, id: `wamid.B${c}.${m}`, text: `m${m}`, timestamp: base + m }));
      for (const [i, status] of (['sent', 'delivered', 'read'] as const).entries())
        unique.push(whatsAppStatus(acc, { messageId: `wamid.OUT${c}`, recipient: from, status, timestamp: base + 100 + i }));
    }
    const duplicates = unique.filter((_, i) => i % 3 === 0).slice(0, 500);
    const all = shuffle([...unique, ...duplicates]);
    let next = 0;
    const statuses: number[] = [];
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < all.length) {
          const res = await post(all[next++]);
          statuses.push(res.statusCode);
        }
      }),
    );
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    await t.app.interactionsWorker.idle();
    const [counts] = await q<{ inbox: number; processed: number; messages: number; inbound: number; conversations: number; contacts: number }>(sql`
      select (select count(*)::int from interaction_webhook_inbox) as inbox,
             (select count(*)::int from interaction_webhook_inbox where state = 'processed') as processed,
             (select count(*)::int from message) as messages,
             (select count(*)::int from message where direction = 'inbound') as inbound,
             (select count(*)::int from conversation) as conversations,
             (select count(*)::int from contact) as contacts`);
    expect(counts).toEqual({ inbox: 1500, processed: 1500, messages: 1300, inbound: 1200, conversations: 100, contacts: 100 });
    const statusRows = await q<{ status: string; n: number }>(sql`select status, count(*)::int as n from message where direction = 'outbound' group by status`);
    expect(statusRows).toEqual([{ status: 'read', n: 100 }]);
    const unread = await q<{ unread_count: number }>(sql`select distinct unread_count from conversation`);
    expect(unread).toEqual([{ unread_count: 12 }]);
  }, 180_000);

  /** Makes the database refuse the message `externalId` with SQLSTATE `code`, as a real fault would. */
  async function refuseMessage(externalId: string, code: string) {
    await t.database.executeSql(`create or replace function refuse_test_message() returns trigger language plpgsql as $$
      begin
        if new.external_message_id = '${externalId}' then raise exception 'refused for the test' using errcode = '${code}'; end if;
        return new;
      end $$`);
    await t.database.executeSql('drop trigger if exists refuse_test_message on message');
    await t.database.executeSql('create trigger refuse_test_message before insert on message for each row execute function refuse_test_message()');
  }
  async function untilDead(maxRounds = 50) {
    for (let i = 0; i < maxRounds; i++) {
      await t.app.interactionsWorker.idle();
      const [row] = await q<{ state: string }>(sql`select state from interaction_webhook_inbox`);
      if (row!.state === 'dead') break;
      await new Promise((r) => setTimeout(r, 20));
      await t.app.interactionsWorker.sweep();
    }
    return (
      await q<{ state: string; attempts: number; last_error: string; event_key: string }>(
        sql`select state, attempts, last_error, event_key from interaction_webhook_inbox`,
      )
    )[0]!;
  }

  it('retries a transient failure with backoff, then moves the event to the dead-letter list with its error, listed and counted', async () => {
    t.app.interactionsWorker.configure({ maxAttempts: 3, retryBaseDelayMs: 1 });
    try {
      await refuseMessage('wamid.BUSY', '40001');
      expect((await post(whatsAppMessage(acc, { from: '50255550100', id: 'wamid.BUSY' }))).statusCode).toBe(200);
      const row = await untilDead();
      expect(row).toMatchObject({ state: 'dead', attempts: 3 });
      expect(row.last_error).toContain('refused for the test');
      const [entity] = await q<{ id: number }>(sql`select id from entity limit 1`);
      const operator = await makeMember(t.database.db, { entityId: entity!.id, superAdmin: true, email: 'ops@example.com' });
      const list = await t.app.inject({ method: 'GET', url: '/api/interactions/webhooks/dead-letters', headers: bearer(await tokenFor(t.app, operator)) });
      expect(list.statusCode).toBe(200);
      expect(list.json().data).toEqual([
        expect.objectContaining({ event_key: 'whatsapp:message:wamid.BUSY', state: 'dead', attempts: 3, last_error: expect.stringContaining('refused') }),
      ]);
      expect((await t.app.inject({ method: 'GET', url: '/metrics' })).body).toMatch(/^interactions_inbox_dead_letters 1$/m);
    } finally {
      t.app.interactionsWorker.configure({ maxAttempts: 8, retryBaseDelayMs: 1000 });
      await t.database.executeSql('drop trigger if exists refuse_test_message on message');
    }
  });

  it('reports the webhook lag: events accepted and not yet projected, and the age of the oldest', async () => {
    const metrics = async () => (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(await metrics()).toMatch(/^interactions_webhook_lag_seconds 0$/m);
    t.app.interactionsWorker.configure({ maxAttempts: 8, retryBaseDelayMs: 60_000 });
    try {
      await refuseMessage('wamid.LAGGING', '40001');
      expect((await post(whatsAppMessage(acc, { from: '50255550102', id: 'wamid.LAGGING' }))).statusCode).toBe(200);
      await t.app.interactionsWorker.idle();
      // The lag grows with the clock: poll until the waiting event is a second old.
      const body = await vi.waitFor(
        async () => {
          const text = await metrics();
          if (!(Number(/^interactions_webhook_lag_seconds ([\d.e+-]+)$/m.exec(text)?.[1]) >= 1)) throw new Error('the lag is not a second yet');
          return text;
        },
        { timeout: 5000, interval: 100 },
      );
      expect(body).toMatch(/^interactions_inbox_pending_events 1$/m);
      expect(Number(/^interactions_webhook_lag_seconds ([\d.e+-]+)$/m.exec(body)?.[1])).toBeGreaterThanOrEqual(1);
    } finally {
      t.app.interactionsWorker.configure({ maxAttempts: 8, retryBaseDelayMs: 1000 });
      await t.database.executeSql('drop trigger if exists refuse_test_message on message');
    }
  });

  it('moves a failure that retrying cannot fix (the database refuses the data) to the dead-letter list at once', async () => {
    t.app.interactionsWorker.configure({ maxAttempts: 8, retryBaseDelayMs: 1 });
    try {
      await refuseMessage('wamid.BROKEN', '22023');
      expect((await post(whatsAppMessage(acc, { from: '50255550101', id: 'wamid.BROKEN' }))).statusCode).toBe(200);
      const row = await untilDead();
      expect(row).toMatchObject({ state: 'dead', attempts: 1, event_key: 'whatsapp:message:wamid.BROKEN' });
    } finally {
      t.app.interactionsWorker.configure({ maxAttempts: 8, retryBaseDelayMs: 1000 });
      await t.database.executeSql('drop trigger if exists refuse_test_message on message');
    }
  });

  it('keeps a WhatsApp sender whose wa_id is no valid E.164 number (test numbers, new ranges) as the platform gives it, and records the message', async () => {
    expect((await post(whatsAppMessage(acc, { from: '12', id: 'wamid.SHORT', text: 'hola' }))).statusCode).toBe(200);
    await t.app.interactionsWorker.idle();
    const rows = await q<{ state: string; text: string; identifier: string }>(sql`
      select i.state, m.text, ch.identifier from interaction_webhook_inbox i
        join message m on m.external_message_id = 'wamid.SHORT'
        join conversation c on c.id = m.conversation_id
        join contact_channel ch on ch.contact_id = c.contact_id and ch.type = 'whatsapp'`);
    expect(rows).toEqual([{ state: 'processed', text: 'hola', identifier: '+12' }]);
  });
});
