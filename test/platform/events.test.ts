/**
 * The domain event bus: in-process subscribers get an event only after its transaction commits, and a
 * durable consumer gets an event published in a transaction even when the instance that published it
 * closes right after the commit, from the next instance on the same database.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestContext } from '../helpers/test-app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db.js';
import { transaction } from '../../src/platform/transactions/transaction.js';
import type { Queue } from '../../src/platform/queue/queue.js';
import type { ContactCreatedEvent } from '../../src/modules/records/records.events.js';

const FAST = { work: { pollingIntervalSeconds: 0.5 } };

function contactCreated(contactId: number): ContactCreatedEvent {
  return { entityId: 1, contactId, leadId: contactId + 100, groupId: 1, createdByEmployeeId: null, source: 'api', occurredAt: new Date().toISOString() };
}

let testDb: TestDatabase;
beforeAll(async () => {
  testDb = await createTestDatabase();
});
afterAll(async () => testDb.close());

describe('durable consumers', () => {
  it('receive an event published in a committed transaction from the next instance when the publisher closed right after the commit', async () => {
    // The first instance runs no workers: it stands for one that stops before delivering anything.
    const first = await createTestApp({ testDb, startQueue: false });
    const deliveredByFirst: ContactCreatedEvent[] = [];
    const inProcess: ContactCreatedEvent[] = [];
    await first.app.ctx.events.subscribeDurably('contact.created', 'test-workflows', async (p) => void deliveredByFirst.push(p), FAST);
    first.app.ctx.events.subscribe('contact.created', (p) => void inProcess.push(p));

    const event = contactCreated(1);
    await transaction(
      first.database.db,
      async ({ events }) => {
        events.domainEvent('contact.created', event);
        expect(inProcess).toEqual([]);
      },
      { realtime: first.app.ctx.publisher, events: first.app.ctx.events },
    );
    expect(inProcess).toEqual([event]);
    await first.close();
    expect(deliveredByFirst).toEqual([]);

    const second = await createTestApp({ testDb, startQueue: true });
    try {
      const received: { payload: ContactCreatedEvent; attempt: number }[] = [];
      await second.app.ctx.events.subscribeDurably(
        'contact.created',
        'test-workflows',
        async (payload, job) => void received.push({ payload, attempt: job.attempt }),
        FAST,
      );
      await vi.waitFor(() => expect(received).toEqual([{ payload: event, attempt: 1 }]), { timeout: 10_000 });
      // Once its job is completed, pg-boss never delivers it again.
      await vi.waitFor(
        async () => {
          const { rows } = await second.database.executeSql('select state from pgboss.job where name = $1', ['contact.created:test-workflows']);
          expect(rows.map((r) => r.state)).toEqual(['completed']);
        },
        { timeout: 10_000 },
      );
      expect(received).toHaveLength(1);
    } finally {
      await second.close();
    }
    // Two whole services start and stop inside this test.
  }, 90_000);
});

describe('publishing in a transaction', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestApp({ testDb, startQueue: true });
  });
  afterAll(async () => t.close());

  it('delivers nothing, in process or durably, when the transaction rolls back', async () => {
    const durable: ContactCreatedEvent[] = [];
    const inProcess: ContactCreatedEvent[] = [];
    await t.app.ctx.events.subscribeDurably('contact.created', 'test-rollback', async (p) => void durable.push(p), FAST);
    const unsubscribe = t.app.ctx.events.subscribe('contact.created', (p) => void inProcess.push(p));
    try {
      await expect(
        transaction(
          t.database.db,
          async ({ events }) => {
            events.domainEvent('contact.created', contactCreated(2));
            throw new Error('the contact was refused');
          },
          { realtime: t.app.ctx.publisher, events: t.app.ctx.events },
        ),
      ).rejects.toThrow('the contact was refused');
      const { rows } = await t.database.executeSql('select count(*)::int as n from pgboss.job where name = $1', ['contact.created:test-rollback']);
      expect(rows[0]?.n).toBe(0);
      await new Promise((r) => setTimeout(r, 700));
      expect(durable).toEqual([]);
      expect(inProcess).toEqual([]);
    } finally {
      unsubscribe();
    }
  });

  it('enqueues only the payloads a consumer says it wants, asked once per batch on the transaction', async () => {
    const received: ContactCreatedEvent[] = [];
    const asked: number[][] = [];
    await t.app.ctx.events.subscribeDurably('contact.created', 'test-interest', async (p) => void received.push(p), {
      ...FAST,
      interest: async (_tx, payloads) => {
        asked.push(payloads.map((p) => p.contactId));
        return payloads.map((p) => p.contactId % 2 === 0);
      },
    });
    await transaction(t.database.db, (unit) =>
      t.app.ctx.events.enqueueDurable(
        unit,
        [11, 12, 13, 14].map((n) => ({ name: 'contact.created' as const, payload: contactCreated(n) })),
      ),
    );
    expect(asked).toEqual([[11, 12, 13, 14]]);
    const { rows } = await t.database.executeSql('select count(*)::int as n from pgboss.job where name = $1', ['contact.created:test-interest']);
    expect(rows[0]?.n).toBe(2);
    await vi.waitFor(() => expect(received.map((p) => p.contactId).sort()).toEqual([12, 14]), { timeout: 10_000 });
  });

  it('refuses a transaction it cannot follow to its commit, writing nothing', async () => {
    await t.app.ctx.events.subscribeDurably('contact.created', 'test-untracked', async () => undefined, FAST);
    const jobs = t.app.ctx.queue as unknown as Queue<Record<string, object>>;
    // A bare transaction instead of a change's unit of work: nothing would wake the consumer after its commit.
    await expect(
      t.database.db.transaction(async (tx) => {
        await jobs.enqueue(tx, 'contact.created:test-untracked', contactCreated(3));
      }),
    ).rejects.toThrow(/unit of work/);
    const { rows } = await t.database.executeSql('select count(*)::int as n from pgboss.job where name = $1', ['contact.created:test-untracked']);
    expect(rows[0]?.n).toBe(0);
  });
});
