/**
 * Fail fast on what can never succeed (issue 27): an inbound event whose WhatsApp sender id is not digits
 * (the SDK fixtures' `"from": "PHONE_NUMBER"`) is dead-lettered on its first attempt with a reason an operator
 * can act on, and leaves nothing pending; a transient failure is still retried. Runs on PGlite by default.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { makeEntity, makeMember, tokenFor, bearer } from '../../helpers/factories.js';
import { makeChannelAccount } from '../../helpers/conversation-factories.js';
import { whatsAppMessage } from '../../../sim/communications/payloads.js';
import { queryRows } from '../../../src/db/client.js';
import { isPermanentFailure, PermanentJobError } from '../../../src/platform/queue/queue.js';
import { AppError } from '../../../src/platform/errors.js';

let t: TestContext;
const acc = { phoneNumberId: 'PN-FAIL-FAST' };
const post = (payload: unknown) => t.app.inject({ method: 'POST', url: '/api/interactions/webhooks/communications', payload: payload as object });

beforeAll(async () => {
  t = await createTestApp({ env: { COMMUNICATIONS_PRIVILEGED_OPERATOR_EMAILS: 'ops@example.com' } });
  const entity = await makeEntity(t.database.db);
  await makeChannelAccount(t.database.db, { entityId: entity.id, externalAccountId: acc.phoneNumberId });
});
afterAll(async () => t?.close());

describe('inbound events that can never be applied', () => {
  it('dead-letters a non-digit WhatsApp sender on its first attempt, with a readable reason, and the pending gauge returns to 0', async () => {
    expect((await post(whatsAppMessage(acc, { from: 'PHONE_NUMBER', id: 'wamid.NOT-DIGITS', text: 'hola' }))).statusCode).toBe(200);
    await t.app.interactionsWorker.idle();
    const [row] = await queryRows<{ state: string; attempts: number; last_error: string }>(
      t.database.db,
      sql`select state, attempts, last_error from interaction_webhook_inbox where event_key = 'whatsapp:message:wamid.NOT-DIGITS'`,
    );
    expect(row).toEqual({
      state: 'dead',
      attempts: 1,
      last_error: 'Invalid whatsapp identifier "+PHONE_NUMBER": the sender must be a phone number in digits (international format)',
    });

    const [entity] = await queryRows<{ id: number }>(t.database.db, sql`select id from entity limit 1`);
    const operator = await makeMember(t.database.db, { entityId: entity!.id, superAdmin: true, email: 'ops@example.com' });
    const list = await t.app.inject({ method: 'GET', url: '/api/interactions/webhooks/dead-letters', headers: bearer(await tokenFor(t.app, operator)) });
    expect(list.statusCode).toBe(200);
    expect(list.json().data).toEqual([
      expect.objectContaining({
        event_key: 'whatsapp:message:wamid.NOT-DIGITS',
        state: 'dead',
        attempts: 1,
        last_error: expect.stringContaining('phone number in digits'),
      }),
    ]);
    const metrics = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toMatch(/^interactions_inbox_pending_events 0$/m);
    expect(metrics).toMatch(/^interactions_inbox_dead_letters 1$/m);

    // A valid sender of the same account is still applied: only the bad event was set aside.
    expect((await post(whatsAppMessage(acc, { from: '50255577001', id: 'wamid.DIGITS', text: 'hola' }))).statusCode).toBe(200);
    await t.app.interactionsWorker.idle();
    expect(await queryRows(t.database.db, sql`select 1 from message where external_message_id = 'wamid.DIGITS'`)).toHaveLength(1);
  });

  it('counts as permanent what retrying cannot cure, and as transient what may pass', () => {
    expect(isPermanentFailure(new PermanentJobError('refused'))).toBe(true);
    expect(isPermanentFailure(new AppError(422, 'invalid_channel_identifier', 'Invalid'))).toBe(true);
    expect(isPermanentFailure(new AppError(404, 'not_found', 'Not found'))).toBe(true);
    expect(isPermanentFailure(new Error('wrapped', { cause: new SyntaxError('Unexpected token') }))).toBe(true);
    expect(isPermanentFailure(Object.assign(new Error('insert violates foreign key'), { code: '23503' }))).toBe(true);
    expect(isPermanentFailure(new AppError(429, 'rate_limited', 'Too many'))).toBe(false);
    expect(isPermanentFailure(new AppError(503, 'erp_unavailable', 'Down'))).toBe(false);
    expect(isPermanentFailure(Object.assign(new Error('connection terminated'), { code: '57P01' }))).toBe(false);
    expect(isPermanentFailure(Object.assign(new Error('deadlock detected'), { code: '40P01' }))).toBe(false);
    expect(isPermanentFailure(new Error('timeout'))).toBe(false);
  });
});
