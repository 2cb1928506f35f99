/**
 * The website chat across two service processes on one PostgreSQL database and one Redis (issue 32): a visitor
 * whose socket is on instance B hears the reply an agent sends through instance A, and the agent's socket on B
 * hears the visitor's message sent through A (the gateway's adapter carries `/widget` too), and a resume
 * through A closes the replaced token's socket on B. Runs only when
 * TEST_DATABASE_URL and REDIS_URL are set.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Socket } from 'socket.io-client';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db.js';
import { createTestApp, type TestContext } from '../helpers/test-app.js';
import { bearer, makeEntity, makeMember, tokenFor } from '../helpers/factories.js';
import { connectSocket, waitFor } from '../helpers/interactions.js';
import { startService, type ServiceProcess } from '../helpers/service-process.js';
import { SITE, connectVisitor } from '../helpers/web-visitor.js';

describe.runIf(process.env.TEST_DATABASE_URL && process.env.REDIS_URL)('the website chat across two instances', () => {
  let testDb: TestDatabase;
  let t: TestContext;
  let a: ServiceProcess;
  let b: ServiceProcess;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    testDb = await createTestDatabase();
    t = await createTestApp({ testDb, startQueue: false });
    [a, b] = await Promise.all([
      startService(testDb.url!, 'web-a', { REDIS_URL: process.env.REDIS_URL! }, 120_000),
      startService(testDb.url!, 'web-b', { REDIS_URL: process.env.REDIS_URL! }, 120_000),
    ]);
  }, 180_000);
  afterAll(async () => {
    for (const s of sockets) s.close();
    await Promise.all([a?.dispose(), b?.dispose()]);
    await t?.close();
    await testDb?.close();
  });

  it('delivers both ways whichever instance each side is on', async () => {
    const member = await makeMember(t.database.db, {
      entityId: (await makeEntity(t.database.db)).id,
      codes: ['entity_channel_accounts.create', 'entity_channel_accounts.edit'],
    });
    const staff = await tokenFor(t.app, member);
    const json = { 'content-type': 'application/json' };
    const account = (await (
      await fetch(`${a.baseUrl}/entity-channel-accounts`, {
        method: 'POST',
        headers: { ...bearer(staff), ...json },
        body: JSON.stringify({ channel_type_code: 'web', display_name: 'Two' }),
      })
    ).json()) as { id: number; external_account_id: string };
    const website = account.external_account_id;
    await fetch(`${a.baseUrl}/entity-channel-accounts/${account.id}/web`, {
      method: 'PATCH',
      headers: { ...bearer(staff), ...json },
      body: JSON.stringify({ allowed_origins: [SITE] }),
    });
    const session = (await (
      await fetch(`${a.baseUrl}/api/widget/${website}/session`, {
        method: 'POST',
        headers: { ...json, origin: SITE },
        body: JSON.stringify({ prechat: { name: 'Two' } }),
      })
    ).json()) as { visitor_token: string };
    const agent = await connectSocket(b.baseUrl, { token: staff });
    const visitor = await connectVisitor(b.baseUrl, { website_token: website, token: session.visitor_token });
    sockets.push(agent.socket, visitor.socket);

    const sent = await fetch(`${a.baseUrl}/api/widget/${website}/messages`, {
      method: 'POST',
      headers: { ...json, origin: SITE, authorization: `Bearer ${session.visitor_token}` },
      body: JSON.stringify({ text: 'through A' }),
    });
    expect(sent.status).toBe(202);
    const created = await waitFor(() => agent.events.find((e) => e.name === 'interaction.message.created' && e.payload.message.text === 'through A'), 15_000);
    const reply = await fetch(`${a.baseUrl}/interactions/conversations/${created.payload.conversation_id as number}/messages/text`, {
      method: 'POST',
      headers: { ...bearer(staff), ...json },
      body: JSON.stringify({ body: 'answered through A' }),
    });
    expect(reply.status).toBe(202);
    const pushed = await waitFor(() => visitor.events.find((e) => e.name === 'widget.message'), 15_000);
    expect(pushed.payload.message).toMatchObject({ author: 'agent', text: 'answered through A' });

    // A resume through A revokes the token, and closes its socket on B.
    const closed = new Promise<string>((resolve) => visitor.socket.once('disconnect', resolve));
    const resumed = await fetch(`${a.baseUrl}/api/widget/${website}/session`, {
      method: 'POST',
      headers: { ...json, origin: SITE },
      body: JSON.stringify({ visitor_token: session.visitor_token }),
    });
    expect(resumed.status).toBe(200);
    expect(await closed).toBe('io server disconnect');
  }, 60_000);
});
