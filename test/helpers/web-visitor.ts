/** Helpers of the website chat tests: a web account with its settings, visitor sessions and visitor sockets. */
import { io as connect, type Socket } from 'socket.io-client';
import type { App } from '../../src/app.js';
import { bearer } from './factories.js';
import type { ReceivedEvent } from './interactions.js';

export const SITE = 'https://shop.example';

/** Registers a web account through the API with `settings` (allowed origins default to `SITE`); returns its id and website token. */
export async function makeWebAccount(app: App, staffToken: string, settings: Record<string, unknown> = {}): Promise<{ id: number; websiteToken: string }> {
  const created = await app.inject({
    method: 'POST',
    url: '/entity-channel-accounts',
    headers: bearer(staffToken),
    payload: { channel_type_code: 'web', display_name: 'Website' },
  });
  if (created.statusCode !== 201) throw new Error(`web account: ${created.statusCode} ${created.body}`);
  const account = created.json<{ id: number; external_account_id: string }>();
  const patched = await app.inject({
    method: 'PATCH',
    url: `/entity-channel-accounts/${account.id}/web`,
    headers: bearer(staffToken),
    payload: { allowed_origins: [SITE], ...settings },
  });
  if (patched.statusCode !== 200) throw new Error(`web settings: ${patched.statusCode} ${patched.body}`);
  return { id: account.id, websiteToken: account.external_account_id };
}

export interface VisitorSession {
  visitor_token: string;
  visitor: { id: number; verified: boolean };
  conversation_id: number | null;
}

/** `POST /api/widget/:token/session` from `origin`; returns the raw response. */
export function startSession(app: App, websiteToken: string, payload: Record<string, unknown> = {}, origin: string = SITE) {
  return app.inject({ method: 'POST', url: `/api/widget/${websiteToken}/session`, headers: { origin }, payload });
}

/** A new visitor's session (throws unless 200). */
export async function newVisitor(app: App, websiteToken: string, prechat: Record<string, string> = { name: 'Ana' }): Promise<VisitorSession> {
  const res = await startSession(app, websiteToken, { prechat });
  if (res.statusCode !== 200) throw new Error(`session: ${res.statusCode} ${res.body}`);
  return res.json<VisitorSession>();
}

/** A visitor request with its token, from `origin`. */
export function visitorRequest(
  app: App,
  websiteToken: string,
  token: string,
  req: { method: 'GET' | 'POST'; path: string; payload?: Record<string, unknown>; origin?: string },
) {
  return app.inject({
    method: req.method,
    url: `/api/widget/${websiteToken}${req.path}`,
    headers: { origin: req.origin ?? SITE, authorization: `Bearer ${token}` },
    ...(req.payload !== undefined ? { payload: req.payload } : {}),
  });
}

/** The chat id a visitor token names (its payload is not secret, only signed). */
export function chatOf(visitorToken: string): string {
  return (JSON.parse(Buffer.from(visitorToken.split('.')[1]!, 'base64url').toString()) as { chat: string }).chat;
}

/** Connects to `/widget`; resolves on `widget.ready`, rejects with the handshake error (its `data.code`). */
export async function connectVisitor(
  baseUrl: string,
  auth: { website_token: string; token: string },
  origin: string = SITE,
): Promise<{ socket: Socket; ready: { visitor_id: number; conversation_id: number | null }; events: ReceivedEvent[] }> {
  const events: ReceivedEvent[] = [];
  const socket = connect(`${baseUrl}/widget`, { transports: ['websocket'], forceNew: true, reconnection: false, auth, extraHeaders: { origin } });
  socket.onAny((name: string, payload: unknown) => events.push({ name, payload }));
  const ready = await new Promise<{ visitor_id: number; conversation_id: number | null }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no widget.ready within 10 s')), 10_000);
    socket.once('widget.ready', (payload: { visitor_id: number; conversation_id: number | null }) => (clearTimeout(timer), resolve(payload)));
    socket.once('connect_error', (err) => (clearTimeout(timer), socket.close(), reject(err)));
  });
  return { socket, ready, events };
}
