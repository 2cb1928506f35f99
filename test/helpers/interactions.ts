/** Helpers for interactions tests: a listening app, a socket.io client, and captured domain events. */
import { io as connect, type Socket } from 'socket.io-client';
import type { App } from '../../src/app.js';
import type { DomainEventMap } from '../../src/platform/events/bus.js';
import { sql } from 'drizzle-orm';
import { queryRows, type Db } from '../../src/db/client.js';

export interface ReceivedEvent {
  name: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- payloads are asserted field by field in tests
  payload: any;
}

/** Listens on 127.0.0.1:0 and returns the base URL. */
export async function listen(app: App): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (typeof address !== 'object' || address === null) throw new Error('not listening');
  return `http://127.0.0.1:${address.port}`;
}

/** Connects to namespace /interactions; resolves with the socket and its `interaction.ready` payload. */
export async function connectSocket(
  baseUrl: string,
  auth: { token?: string; header?: string; query?: string; scope?: string },
): Promise<{ socket: Socket; ready: unknown; events: ReceivedEvent[] }> {
  const events: ReceivedEvent[] = [];
  const socket = connect(`${baseUrl}/interactions`, {
    transports: ['websocket'],
    forceNew: true,
    reconnection: false,
    ...(auth.token !== undefined ? { auth: { token: auth.token, ...(auth.scope !== undefined ? { scope: auth.scope } : {}) } } : {}),
    ...(auth.header !== undefined ? { extraHeaders: { authorization: `Bearer ${auth.header}` } } : {}),
    ...(auth.query !== undefined ? { query: { token: auth.query } } : {}),
  });
  socket.onAny((name: string, payload: unknown) => events.push({ name, payload }));
  const ready = await new Promise((resolve, reject) => {
    // A socket the server drops before `ready` (its audience could not be read) fails here instead of hanging.
    const timer = setTimeout(() => reject(new Error('no interaction.ready within 15 s')), 15_000);
    socket.once('interaction.ready', (payload: unknown) => (clearTimeout(timer), resolve(payload)));
    socket.once('connect_error', (err) => (clearTimeout(timer), reject(err)));
    socket.once('disconnect', (reason) => (clearTimeout(timer), reject(new Error(`disconnected before interaction.ready: ${reason}`))));
  });
  return { socket, ready, events };
}

/** Resolves when `predicate` holds over the events received so far (polls every 10 ms, fails after `ms`). */
export async function waitFor<T>(probe: () => T | undefined | false | Promise<T | undefined | false>, ms = 5000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() - started > ms) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * The states of the durable queue's jobs named `name` whose singleton key starts with `singletonKeyPrefix`
 * (a conversation's timers: `wake:<id>:`, `sla:<id>:`), in the order they are due.
 */
export async function queuedJobStates(db: Db, name: string, singletonKeyPrefix: string): Promise<string[]> {
  const jobs = await queryRows<{ state: string }>(
    db,
    sql`select state from pgboss.job where name = ${name} and singleton_key like ${`${singletonKeyPrefix}%`} order by start_after`,
  );
  return jobs.map((j) => j.state);
}

/**
 * The conversation of chat `externalChatId` as `GET /interactions/conversations` shows it to the holder of
 * `token`, waiting up to `ms` for the inbox to open it (after an inbound webhook).
 */
export async function waitForConversation(app: App, token: string, externalChatId: string, ms = 5000): Promise<{ id: number } & Record<string, unknown>> {
  return waitFor(async () => {
    const res = await app.inject({
      method: 'GET',
      url: `/interactions/conversations?q=${encodeURIComponent(externalChatId)}`,
      headers: { authorization: `Bearer ${token}` },
    });
    return (res.json().data as ({ id: number; external_chat_id: string } & Record<string, unknown>)[]).find((c) => c.external_chat_id === externalChatId);
  }, ms);
}

/** Records every published domain event of `names`. */
export function captureEvents<K extends keyof DomainEventMap>(app: App, names: K[]): { name: K; payload: DomainEventMap[K] }[] {
  const seen: { name: K; payload: DomainEventMap[K] }[] = [];
  for (const name of names) app.ctx.events.subscribe(name, (payload) => void seen.push({ name, payload }));
  return seen;
}
