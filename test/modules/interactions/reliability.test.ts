import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
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
const post = (payload: unknown, app = t.app) => app.inject({ method: 'POST', url: '/api/interactions/webhooks/communications', payload: payload as object });

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
  t = await createTestApp();
});
afterAll(async () => t.close());
beforeEach(async () => {
  await t.app.interactionsWorker.idle();
  await resetDatabase(t.database);
  const entity = await makeEntity(t.database.db);
  await makeChannelAccount(t.database.db, { entityId: entity.id, externalAccountId: DEMO_PHONE_NUMBER_ID });
});

describe('inbox reliability', () => {
  it('ends a burst of 2,000 events with 10% duplicates and shuffled statuses with exact counts', async () => {
    const base = 1_760_000_000;
    const unique: object[] = [];
    // 100 customers x 10 inbound messages, plus 100 outbound messages with 3 statuses each... sized to 1,800 unique events.
    for (let c = 0; c < 100; c++) {
      const from = `5025550${String(c).padStart(4, '0')}`;
      for (let m = 0; m < 12; m++) unique.push(whatsAppMessage(acc, { from, id: `wamid.B${c}.${m}`, text: `m${m}`, timestamp: base + m }));
      for (const [i, status] of (['sent', 'delivered', 'read'] as const).entries()) unique.push(whatsAppStatus(acc, { messageId: `wamid.OUT${c}`, recipient: from, status, timestamp: base + 100 + i }));
    }
    expect(unique.length).toBe(1500);
    const duplicates = unique.filter((_, i) => i % 3 === 0).slice(0, 500);
    const all = shuffle([...unique, ...duplicates]);
    expect(all.length).toBe(2000);
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
    expect(statuses.every((s) => s === 200)).toBe(true);
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

  it('finishes every accepted event exactly once after the worker is stopped mid-batch and restarted', async () => {
    const first = await createTestApp({ testDb: t.testDb });
    const payloads = Array.from({ length: 150 }, (_, i) => whatsAppMessage(acc, { from: `50255560${String(i % 30).padStart(3, '0')}`, id: `wamid.R${i}`, timestamp: 1_760_000_000 + i }));
    const accepted = await Promise.all(payloads.map((p) => post(p, first.app)));
    expect(accepted.every((r) => r.statusCode === 200)).toBe(true);
    await first.close(); // stops the worker: what it had not started stays pending in the inbox
    const [{ pending }] = (await q<{ pending: number }>(sql`select count(*)::int as pending from interaction_webhook_inbox where state = 'pending'`)) as [{ pending: number }];
    expect(pending).toBeGreaterThanOrEqual(0);
    const second = await createTestApp({ testDb: t.testDb });
    try {
      for (let i = 0; i < 200; i++) {
        const [row] = await q<{ n: number }>(sql`select count(*)::int as n from interaction_webhook_inbox where state = 'pending'`);
        if (row!.n === 0) break;
        await second.app.interactionsWorker.sweep(true);
        await second.app.interactionsWorker.idle();
      }
      const [counts] = await q<{ processed: number; messages: number; distinct_ids: number }>(sql`
        select (select count(*)::int from interaction_webhook_inbox where state = 'processed') as processed,
               (select count(*)::int from message) as messages,
               (select count(distinct external_message_id)::int from message) as distinct_ids`);
      expect(counts).toEqual({ processed: 150, messages: 150, distinct_ids: 150 });
      const [unread] = await q<{ total: number }>(sql`select sum(unread_count)::int as total from conversation`);
      expect(unread!.total).toBe(150);
    } finally {
      await second.close();
    }
  });

  it('retries a failing event with backoff and moves it to the dead-letter list with its error', async () => {
    t.app.interactionsWorker.configure({ maxAttempts: 3, retryBaseDelayMs: 1 });
    try {
      // A WhatsApp id that is no phone number cannot become a contact: processing fails every time.
      const res = await post(whatsAppMessage(acc, { from: '12', id: 'wamid.BAD' }));
      expect(res.statusCode).toBe(200);
      for (let i = 0; i < 50; i++) {
        await t.app.interactionsWorker.idle();
        const [row] = await q<{ state: string }>(sql`select state from interaction_webhook_inbox`);
        if (row!.state === 'dead') break;
        await new Promise((r) => setTimeout(r, 20));
        await t.app.interactionsWorker.sweep();
      }
      const [row] = await q<{ state: string; attempts: number; last_error: string }>(sql`select state, attempts, last_error from interaction_webhook_inbox`);
      expect(row).toMatchObject({ state: 'dead', attempts: 3 });
      expect(row!.last_error).toContain('Invalid whatsapp identifier');
      const [entity] = await q<{ id: number }>(sql`select id from entity limit 1`);
      const operator = await makeMember(t.database.db, { entityId: entity!.id, superAdmin: true });
      const list = await t.app.inject({ method: 'GET', url: '/api/interactions/webhooks/dead-letters', headers: bearer(await tokenFor(t.app, operator)) });
      expect(list.statusCode).toBe(200);
      expect(list.json().data).toEqual([expect.objectContaining({ event_key: 'whatsapp:message:wamid.BAD', state: 'dead', attempts: 3, last_error: expect.stringContaining('Invalid') })]);
    } finally {
      t.app.interactionsWorker.configure({ maxAttempts: 8, retryBaseDelayMs: 1000 });
    }
  });
});
