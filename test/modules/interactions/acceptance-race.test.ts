/**
 * The platform's `sent` status webhook recorded while the service records the platform's answer to the
 * same send: the webhook leaves a stub under the platform's id after the acceptance statement read the
 * table, so that statement meets the stub's id when it writes. The acceptance must still fold the stub
 * into the message, without failing the send attempt and calling the platform again. A trigger holds the
 * acceptance for half a second, so that the webhook's stub always lands in that moment. Needs concurrent
 * sessions on one database, so it runs only when TEST_DATABASE_URL is set.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { bearer, makeEntity, makeMember, tokenFor } from '../../helpers/factories.js';
import { makeChannelAccount } from '../../helpers/conversation-factories.js';
import { listen, waitFor, waitForConversation } from '../../helpers/interactions.js';
import { whatsAppMessage } from '../../../sim/communications/payloads.js';
import { startProviderSimulator, type ProviderSimulator } from '../../../sim/communications/provider.js';

type Row = Record<string, unknown>;
const API_KEY = 'race-communications-key';
const CUSTOMER = '50255533333';

describe.runIf(process.env.TEST_DATABASE_URL)("a status webhook recorded while the platform's answer is recorded", () => {
  let t: TestContext;
  let sim: ProviderSimulator;
  let token: string;
  let conversationId: number;

  beforeAll(async () => {
    sim = await startProviderSimulator({ apiKey: API_KEY });
    t = await createTestApp({ env: { COMMUNICATIONS_BASE_URL: sim.url, COMMUNICATIONS_API_KEY: API_KEY }, startQueue: true });
    const baseUrl = await listen(t.app);
    const entityId = (await makeEntity(t.database.db, 'Race')).id;
    await makeChannelAccount(t.database.db, { entityId, externalAccountId: 'PN-RACE' });
    token = await tokenFor(t.app, await makeMember(t.database.db, { entityId }));
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/interactions/webhooks/communications',
      payload: whatsAppMessage({ phoneNumberId: 'PN-RACE' }, { from: CUSTOMER, text: 'hola' }),
    });
    expect(res.statusCode).toBe(200);
    conversationId = (await waitForConversation(t.app, token, CUSTOMER)).id;
    // The platform posts its `sent` as soon as it answers; the answer's record waits half a second.
    sim.setWebhookTarget(baseUrl, ['sent']);
    await t.database.executeSql(`create or replace function hold_acceptance() returns trigger language plpgsql as $$
      begin
        if old.external_message_id like 'crm:%' and new.external_message_id not like 'crm:%' then perform pg_sleep(0.5); end if;
        return new;
      end $$`);
    await t.database.executeSql('create trigger hold_acceptance before update on message for each row execute function hold_acceptance()');
  });
  afterAll(async () => {
    await t?.close();
    await sim?.close();
  });

  it("folds the webhook's stub into the message and calls the platform once", async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/interactions/conversations/${conversationId}/messages/text`,
      headers: bearer(token),
      payload: { body: 'en camino' },
    });
    expect(res.statusCode).toBe(202);
    const id = res.json().id as number;
    const history = async () =>
      (await t.app.inject({ method: 'GET', url: `/interactions/conversations/${conversationId}/history?limit=50`, headers: bearer(token) })).json()
        .data as Row[];
    const sent = await waitFor(async () => (await history()).find((m) => m.id === id && m.status === 'sent'), 10_000);
    const [call] = sim.deliveries;
    expect(sim.calls.filter((c) => c.idempotencyKey === call!.idempotencyKey).map((c) => c.outcome)).toEqual([sent.external_message_id]);
    // The stub the webhook left under the platform's id is gone: the message is the only row with that id.
    expect((await history()).filter((m) => m.direction === 'outbound').map((m) => m.external_message_id)).toEqual([sent.external_message_id]);
  });
});
