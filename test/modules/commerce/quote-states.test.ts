/**
 * The quote state machine, exhaustively over HTTP: every state (draft, sent, approved, rejected, a draft
 * past its validity, a sent quote whose validity passed after it was sent) × every move the API offers
 * (send, approve, reject, edit, order it). Legal moves succeed; every other move is 409 with its stable
 * code and leaves the quote as it was.
 *
 * Expiry is a read-time rule on the entity's date (docs/decisions.md "Commerce"), so a sent quote's
 * validity "passes" by moving its entity from the last time zone to reach a date (Pacific/Pago_Pago,
 * UTC−11) to the first (Pacific/Kiritimati, UTC+14): the same instant is always a later date there.
 */
import { sql } from 'drizzle-orm';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { bearer, makeEntity, makeMember, tokenFor } from '../../helpers/factories.js';
import { makeLead } from '../../helpers/records-factories.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are asserted field by field
type Row = Record<string, any>;
type State = 'draft' | 'sent' | 'approved' | 'rejected' | 'expired draft' | 'lapsed sent';
type Action = 'send' | 'approve' | 'reject' | 'edit' | 'order';

const LATE_ZONE = 'Pacific/Pago_Pago';
const EARLY_ZONE = 'Pacific/Kiritimati';
let t: TestContext;
let token: string;
let entityId: number;
let leadId: number;

beforeAll(async () => {
  t = await createTestApp();
  const db = t.database.db;
  entityId = (await makeEntity(db, 'Estados')).id;
  token = await tokenFor(t.app, await makeMember(db, { entityId, codes: ['quotes.create', 'orders.create'] }));
  leadId = (await makeLead(db, { entityId })).id;
});
afterAll(async () => t?.close());

const call = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) =>
  t.app.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) });
const setZone = (zone: string) => t.database.db.execute(sql`update entity set time_zone = ${zone} where id = ${entityId}`);

async function create(validUntil = '2099-12-31'): Promise<number> {
  const res = await call('POST', '/quotes', {
    lead_id: leadId,
    currency: 'GTQ',
    valid_until: validUntil,
    lines: [{ description: 'Plan', quantity: '2', unit_price: '10.50' }],
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<Row>().id as number;
}

async function moved(id: number, action: 'send' | 'approve' | 'reject') {
  const res = await call('POST', `/quotes/${id}/${action}`);
  expect(res.statusCode, res.body).toBe(200);
}

/** A quote of the entity in `state`, reached through the API only. */
async function quoteIn(state: State): Promise<number> {
  await setZone(LATE_ZONE);
  if (state === 'expired draft') return create('2020-01-01');
  if (state === 'lapsed sent') {
    // Valid through today where the date changes last, sent, then read where the date is already later.
    const id = await create(DateTime.now().setZone(LATE_ZONE).toISODate()!);
    await moved(id, 'send');
    await setZone(EARLY_ZONE);
    return id;
  }
  const id = await create();
  if (state !== 'draft') await moved(id, 'send');
  if (state === 'approved') await moved(id, 'approve');
  if (state === 'rejected') await moved(id, 'reject');
  return id;
}

const act = (id: number, action: Action) => {
  if (action === 'edit') return call('PATCH', `/quotes/${id}`, { notes: 'cambio', lines: [{ description: 'Otro', quantity: '1', unit_price: '5' }] });
  if (action === 'order') return call('POST', '/orders', { quote_id: id });
  return call('POST', `/quotes/${id}/${action}`);
};

/** What each state reads as, and what each action leads to: a status (200/201) or a refusal code (409). */
const READS: Record<State, string> = {
  draft: 'draft',
  sent: 'sent',
  approved: 'approved',
  rejected: 'rejected',
  'expired draft': 'expired',
  'lapsed sent': 'expired',
};
const OUTCOMES: Record<State, Record<Action, { to: string } | { refused: string }>> = {
  draft: {
    send: { to: 'sent' },
    approve: { refused: 'invalid_transition' },
    reject: { refused: 'invalid_transition' },
    edit: { to: 'draft' },
    order: { refused: 'quote_not_approved' },
  },
  sent: {
    send: { refused: 'invalid_transition' },
    approve: { to: 'approved' },
    reject: { to: 'rejected' },
    edit: { refused: 'quote_not_editable' },
    order: { refused: 'quote_not_approved' },
  },
  approved: {
    send: { refused: 'invalid_transition' },
    approve: { refused: 'invalid_transition' },
    reject: { refused: 'invalid_transition' },
    edit: { refused: 'quote_not_editable' },
    order: { to: 'approved' },
  },
  rejected: {
    send: { refused: 'invalid_transition' },
    approve: { refused: 'invalid_transition' },
    reject: { refused: 'invalid_transition' },
    edit: { refused: 'quote_not_editable' },
    order: { refused: 'quote_not_approved' },
  },
  'expired draft': {
    send: { refused: 'invalid_transition' },
    approve: { refused: 'invalid_transition' },
    reject: { refused: 'invalid_transition' },
    edit: { refused: 'quote_not_editable' },
    order: { refused: 'quote_not_approved' },
  },
  'lapsed sent': {
    send: { refused: 'invalid_transition' },
    approve: { refused: 'invalid_transition' },
    reject: { refused: 'invalid_transition' },
    edit: { refused: 'quote_not_editable' },
    order: { refused: 'quote_not_approved' },
  },
};
const CELLS = (Object.keys(OUTCOMES) as State[]).flatMap((state) =>
  (Object.keys(OUTCOMES[state]) as Action[]).map((action) => ({ state, action, outcome: OUTCOMES[state][action] })),
);
const legal = CELLS.flatMap((c) => ('to' in c.outcome ? [[c.state, c.action, c.outcome.to] as const] : []));
const illegal = CELLS.flatMap((c) => ('refused' in c.outcome ? [[c.state, c.action, c.outcome.refused] as const] : []));

describe('quote state × action', () => {
  it.each(legal)('%s quote: %s succeeds, leaving it %s', async (state, action, to) => {
    const id = await quoteIn(state);
    const res = await act(id, action);
    expect(res.statusCode, res.body).toBe(action === 'order' ? 201 : 200);
    if (action === 'order') expect(res.json()).toMatchObject({ quote_id: id, currency: 'GTQ', total: '21.00' });
    else expect(res.json()).toMatchObject({ id, status: to });
    expect((await call('GET', `/quotes/${id}`)).json()).toMatchObject({ status: to });
  });

  it.each(illegal)('%s quote: %s is refused with 409 %s and changes nothing', async (state, action, code) => {
    const id = await quoteIn(state);
    const before = (await call('GET', `/quotes/${id}`)).json<Row>();
    expect(before.status).toBe(READS[state]);
    const res = await act(id, action);
    expect(res.statusCode, res.body).toBe(409);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json()).toMatchObject({ status: 409, code, requestId: expect.any(String) });
    const after = (await call('GET', `/quotes/${id}`)).json<Row>();
    expect(after).toMatchObject({ status: before.status, notes: before.notes, total: before.total, order_id: null, decided_at: before.decided_at });
  });

  it('covers every state the API can give a quote and every move it offers', () => {
    expect(new Set(Object.values(READS))).toEqual(new Set(['draft', 'sent', 'approved', 'rejected', 'expired']));
    expect(legal.length + illegal.length).toBe(6 * 5);
  });
});

describe('expiry of a sent quote', () => {
  it('reads a sent quote as expired once its validity passes, and back as sent while it has not', async () => {
    const id = await quoteIn('lapsed sent');
    expect((await call('GET', `/quotes/${id}`)).json()).toMatchObject({ status: 'expired', sent_at: expect.any(String) });
    await setZone(LATE_ZONE);
    expect((await call('GET', `/quotes/${id}`)).json().status).toBe('sent'); // evaluated on read, nothing stored yet
  });

  it('records the expiry on the first refused move, so the quote stays expired wherever it is read', async () => {
    const id = await quoteIn('lapsed sent');
    const refused = await call('POST', `/quotes/${id}/approve`);
    expect(refused.json()).toMatchObject({ status: 409, code: 'invalid_transition', action: 'approve' });
    await setZone(LATE_ZONE);
    expect((await call('GET', `/quotes/${id}`)).json()).toMatchObject({ status: 'expired', decided_at: null });
    expect((await call('POST', `/quotes/${id}/reject`)).json()).toMatchObject({ status: 409, code: 'invalid_transition' });
  });

  it('lists a quote under the status it reads as, not the one last stored', async () => {
    const lapsedDraft = await quoteIn('expired draft');
    const lapsedSent = await quoteIn('lapsed sent');
    const listed = async (status: string) => ((await call('GET', `/quotes?status=${status}&limit=100`)).json().data as Row[]).map((q) => q.id as number);
    for (const status of ['draft', 'sent']) {
      const ids = await listed(status);
      expect(ids).not.toContain(lapsedDraft);
      expect(ids).not.toContain(lapsedSent);
    }
    expect(await listed('expired')).toEqual(expect.arrayContaining([lapsedDraft, lapsedSent]));
    for (const status of ['draft', 'sent', 'expired']) {
      const res = await call('GET', `/quotes?status=${status}&limit=100`);
      expect(
        (res.json().data as Row[]).every((q) => q.status === status),
        status,
      ).toBe(true);
    }
  });
});
