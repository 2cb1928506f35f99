/**
 * Reconnect without loss on one instance: a client whose connection drops and which reconnects within the
 * recovery window receives the events it missed, once, after its token was checked again; a reconnection
 * with a token of another entity gets none of them and none of the old entity's rooms; an invalid token is
 * refused before anything is replayed. (Across instances: test/platform/multi-instance.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { io, type Socket } from 'socket.io-client';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { makeEntity, makeMember, tokenFor } from '../../helpers/factories.js';
import { makeChannelAccount } from '../../helpers/conversation-factories.js';
import { listen, waitFor } from '../../helpers/interactions.js';
import { whatsAppMessage } from '../../../sim/communications/payloads.js';

let t: TestContext;
let baseUrl: string;
let token: string;
let otherToken: string;
const sockets: Socket[] = [];

beforeAll(async () => {
  t = await createTestApp();
  baseUrl = await listen(t.app);
  const mine = (await makeEntity(t.database.db, 'Reconnects')).id;
  const other = (await makeEntity(t.database.db, 'Elsewhere')).id;
  await makeChannelAccount(t.database.db, { entityId: mine, externalAccountId: 'PN-RECONNECT' });
  await makeChannelAccount(t.database.db, { entityId: other, externalAccountId: 'PN-ELSEWHERE' });
  token = await tokenFor(t.app, await makeMember(t.database.db, { entityId: mine }));
  otherToken = await tokenFor(t.app, await makeMember(t.database.db, { entityId: other }));
});
afterAll(async () => {
  for (const s of sockets) s.disconnect();
  await t.close();
});

/** A client as a browser keeps it: reconnecting by itself, one second after a drop. */
async function client(): Promise<{ socket: Socket; texts: string[]; readies: { entity_id: number }[] }> {
  const texts: string[] = [];
  const readies: { entity_id: number }[] = [];
  const socket = io(`${baseUrl}/interactions`, {
    transports: ['websocket'],
    forceNew: true,
    auth: { token },
    reconnectionDelay: 1000,
    reconnectionDelayMax: 1000,
    randomizationFactor: 0,
  });
  sockets.push(socket);
  socket.on('interaction.message.created', (p: { message: { text: string } }) => void texts.push(p.message.text));
  socket.on('interaction.ready', (r: { entity_id: number }) => void readies.push(r));
  await waitFor(() => readies.length === 1 || undefined);
  return { socket, texts, readies };
}

async function customerWrites(account: string, text: string): Promise<void> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/interactions/webhooks/communications',
    payload: whatsAppMessage({ phoneNumberId: account }, { from: '50255588888', text }),
  });
  expect(res.statusCode).toBe(200);
  await t.app.interactionsWorker.idle();
}

/** Drops the client's connection as a network failure would (the client then reconnects by itself). */
async function dropConnection(socket: Socket): Promise<void> {
  const connected = t.app.ctx.realtime.socketCount();
  const dropped = new Promise<string>((resolve) => socket.once('disconnect', resolve));
  // The connection closes under the client (the server sees a transport close, as on a network failure).
  socket.io.engine.close();
  await dropped;
  // The server sees the close too, and keeps the session for the reconnection.
  await waitFor(() => t.app.ctx.realtime.socketCount() === connected - 1 || undefined);
}

describe('reconnect without loss', () => {
  it('replays the events missed during a drop once the client is back, each once, in order', async () => {
    const { socket, texts, readies } = await client();
    await customerWrites('PN-RECONNECT', 'antes');
    await waitFor(() => texts.length === 1 || undefined);

    await dropConnection(socket);
    await customerWrites('PN-RECONNECT', 'durante 1');
    await customerWrites('PN-RECONNECT', 'durante 2');
    await waitFor(() => readies.length === 2 || undefined, 5000);
    expect(socket.recovered).toBe(true);
    await waitFor(() => texts.length >= 3 || undefined);
    await customerWrites('PN-RECONNECT', 'después');
    // A chat's events arrive in order: once a later message is here, any repeat of the earlier ones would be too.
    await customerWrites('PN-RECONNECT', 'al final');
    await waitFor(() => texts.includes('al final') || undefined);
    expect(texts).toEqual(['antes', 'durante 1', 'durante 2', 'después', 'al final']);
  });

  it('replays nothing to a reconnection that presents a token of another entity, and keeps none of the old rooms', async () => {
    const { socket, texts, readies } = await client();
    await new Promise((resolve) => socket.emit('interaction.chat.subscribe', { external_chat_id: '50255588888' }, resolve));
    await dropConnection(socket);
    socket.auth = { token: otherToken };
    await customerWrites('PN-RECONNECT', 'no para otros');
    await waitFor(() => readies.length === 2 || undefined, 5000);
    expect(readies[1]!.entity_id).not.toBe(readies[0]!.entity_id);
    await customerWrites('PN-RECONNECT', 'tampoco');
    await customerWrites('PN-ELSEWHERE', 'para la otra empresa');
    await waitFor(() => texts.includes('para la otra empresa') || undefined);
    expect(texts).toEqual(['para la otra empresa']);
  });

  it('checks the token again on reconnection: an invalid one resumes nothing and the client receives nothing', async () => {
    const { socket, texts } = await client();
    await dropConnection(socket);
    socket.auth = { token: 'not-a-token' };
    const refused = new Promise<Error>((resolve) => socket.once('connect_error', resolve));
    await customerWrites('PN-RECONNECT', 'no para un token inválido');
    expect((await refused).message).toBe('The token is not valid');
    socket.disconnect();
    expect(texts).toEqual([]);
  });
});
