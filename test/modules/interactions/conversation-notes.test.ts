/**
 * Private notes on conversations (issue 50): the list, mentions against the visibility matrix (whoever may
 * see the conversation may be mentioned; another entity's employee or one who may not see it is refused with
 * the reason, nothing stored), author-only edits, deletes by the author or a `conversations.view_all` holder,
 * notes in order with the messages in the history, the agents' socket event, and that a note never reaches the
 * customer: not the visitor's socket, not the widget's history, not the inbox preview.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import type { Socket } from 'socket.io-client';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { bearer, makeEntity, makeMember, tokenFor, type Member } from '../../helpers/factories.js';
import { connectSocket, listen, waitFor, waitForConversation, type ReceivedEvent } from '../../helpers/interactions.js';
import { chatOf, connectVisitor, makeWebAccount, newVisitor, visitorRequest, type VisitorSession } from '../../helpers/web-visitor.js';
import { queryRows } from '../../../src/db/client.js';

let t: TestContext;
let baseUrl: string;
let site: { id: number; websiteToken: string };
let visitor: VisitorSession;
let visitorEvents: ReceivedEvent[];
let conversationId: number;
const sockets: Socket[] = [];
/** The conversation's assignee (restricted), a restricted agent who does not see it, a supervisor (view_all), another entity's member. */
const who = {} as Record<'assignee' | 'stranger' | 'supervisor' | 'foreign', { member: Member; token: string }>;

const api = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, token: string, payload?: object) =>
  t.app.inject({ method, url: `/api/interactions/conversations/${url}`, headers: bearer(token), ...(payload ? { payload } : {}) });
const mention = (m: Member) => `@[employee:${m.employeeId}]`;
const storedNotes = async () => (await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from conversation_note`))[0]!.n;

beforeAll(async () => {
  t = await createTestApp({ startQueue: true });
  baseUrl = await listen(t.app);
  const db = t.database.db;
  const entity = await makeEntity(db);
  const other = await makeEntity(db);
  const staff = await makeMember(db, { entityId: entity.id, codes: ['entity_channel_accounts.create', 'entity_channel_accounts.edit'] });
  const staffToken = await tokenFor(t.app, staff);
  const roles: [keyof typeof who, Parameters<typeof makeMember>[1]][] = [
    ['assignee', { entityId: entity.id, conversations: 'restricted' }],
    ['stranger', { entityId: entity.id, conversations: 'restricted' }],
    ['supervisor', { entityId: entity.id, codes: ['conversations.view_all'], conversations: 'restricted' }],
    ['foreign', { entityId: other.id }],
  ];
  for (const [key, opts] of roles) {
    const member = await makeMember(db, opts);
    who[key] = { member, token: await tokenFor(t.app, member) };
  }
  site = await makeWebAccount(t.app, staffToken);
  visitor = await newVisitor(t.app, site.websiteToken);
  const v = await connectVisitor(baseUrl, { website_token: site.websiteToken, token: visitor.visitor_token });
  sockets.push(v.socket);
  visitorEvents = v.events;
  const said = await visitorRequest(t.app, site.websiteToken, visitor.visitor_token, {
    method: 'POST',
    path: '/messages',
    payload: { text: 'Hola, ¿tienen envío?' },
  });
  expect(said.statusCode).toBeLessThan(300);
  conversationId = (await waitForConversation(t.app, staffToken, chatOf(visitor.visitor_token))).id;
  await db.execute(
    sql`update conversation set assignment_status = 'assigned', assigned_employee_id = ${who.assignee.member.employeeId} where id = ${conversationId}`,
  );
}, 60_000);
afterAll(async () => {
  for (const s of sockets) s.close();
  await t?.close();
});

describe('writing notes and mentions', () => {
  let noteId: number;

  it('an agent who sees the conversation writes a note mentioning those who see it; the agents who see it hear it at once', async () => {
    const supervisorSocket = await connectSocket(baseUrl, { token: who.supervisor.token });
    const strangerSocket = await connectSocket(baseUrl, { token: who.stranger.token });
    sockets.push(supervisorSocket.socket, strangerSocket.socket);
    const body = `Revisar envío ${mention(who.supervisor.member)} y ${mention(who.assignee.member)} ${mention(who.supervisor.member)}`;
    const res = await api('POST', `${conversationId}/notes`, who.assignee.token, { body });
    expect(res.statusCode).toBe(201);
    const note = res.json();
    noteId = note.id;
    expect(note).toMatchObject({
      kind: 'note',
      conversation_id: conversationId,
      author_employee_id: who.assignee.member.employeeId,
      author_workflow_id: null,
      body,
      mentioned_employee_ids: [who.supervisor.member.employeeId, who.assignee.member.employeeId],
      attachment_ids: [],
      edited_at: null,
    });
    const heard = await waitFor(() => supervisorSocket.events.find((e) => e.name === 'interaction.note.created'));
    expect(heard.payload).toEqual({ conversation_id: conversationId, note });
    expect(strangerSocket.events.some((e) => e.name.startsWith('interaction.note.'))).toBe(false);
  });

  it('refuses a mention of an employee who may not see the conversation, or of another entity, naming them and why; nothing stored', async () => {
    const before = await storedNotes();
    const blind = await api('POST', `${conversationId}/notes`, who.assignee.token, { body: `mira ${mention(who.stranger.member)}` });
    expect(blind.statusCode).toBe(422);
    expect(blind.json()).toMatchObject({ code: 'mention_refused', employee_id: who.stranger.member.employeeId, reason: 'cannot_see_conversation' });
    const foreign = await api('POST', `${conversationId}/notes`, who.supervisor.token, { body: `${mention(who.foreign.member)}` });
    expect(foreign.statusCode).toBe(422);
    expect(foreign.json()).toMatchObject({ code: 'mention_refused', employee_id: who.foreign.member.employeeId, reason: 'not_a_member' });
    const unknown = await api('POST', `${conversationId}/notes`, who.supervisor.token, { body: '@[employee:99999999999]' });
    expect(unknown.json()).toMatchObject({ code: 'mention_refused', reason: 'not_a_member' });
    const edit = await api('PATCH', `${conversationId}/notes/${noteId}`, who.assignee.token, { body: mention(who.stranger.member) });
    expect(edit.json()).toMatchObject({ code: 'mention_refused', reason: 'cannot_see_conversation' });
    expect(await storedNotes()).toBe(before);
    const kept = await api('GET', `${conversationId}/notes`, who.assignee.token);
    expect(kept.json().data.map((n: { id: number; body: string }) => n.body)).toEqual([expect.stringContaining('Revisar envío')]);
  });

  it('a conversation the caller may not see (another entity’s too) is 404 for reading and writing notes', async () => {
    for (const token of [who.stranger.token, who.foreign.token]) {
      expect((await api('GET', `${conversationId}/notes`, token)).statusCode).toBe(404);
      expect((await api('POST', `${conversationId}/notes`, token, { body: 'x' })).statusCode).toBe(404);
      expect((await api('DELETE', `${conversationId}/notes/${noteId}`, token)).statusCode).toBe(404);
    }
  });

  it('refuses bad bodies: empty, over 4,096 characters, an attachment that is not a media object of the entity', async () => {
    expect((await api('POST', `${conversationId}/notes`, who.assignee.token, { body: '' })).statusCode).toBe(400);
    expect((await api('POST', `${conversationId}/notes`, who.assignee.token, { body: 'x'.repeat(4097) })).statusCode).toBe(400);
    const res = await api('POST', `${conversationId}/notes`, who.assignee.token, { body: 'ver foto', attachment_ids: [987654] });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ code: 'invalid_attachment', media_id: 987654 });
  });

  it('only the author edits; the author or a view_all holder deletes', async () => {
    const byOther = await api('PATCH', `${conversationId}/notes/${noteId}`, who.supervisor.token, { body: 'cambiado' });
    expect(byOther.statusCode).toBe(403);
    expect(byOther.json().code).toBe('note_not_author');
    const edited = await api('PATCH', `${conversationId}/notes/${noteId}`, who.assignee.token, { body: `Listo ${mention(who.supervisor.member)}` });
    expect(edited.statusCode).toBe(200);
    expect(edited.json()).toMatchObject({ body: `Listo ${mention(who.supervisor.member)}`, mentioned_employee_ids: [who.supervisor.member.employeeId] });
    expect(edited.json().edited_at).not.toBeNull();

    const supervisorNote = (await api('POST', `${conversationId}/notes`, who.supervisor.token, { body: 'del supervisor' })).json();
    const denied = await api('DELETE', `${conversationId}/notes/${supervisorNote.id}`, who.assignee.token);
    expect(denied.statusCode).toBe(403);
    expect(denied.json().code).toBe('note_not_author');
    expect((await api('DELETE', `${conversationId}/notes/${supervisorNote.id}`, who.supervisor.token)).statusCode).toBe(204);
    const assigneeNote = (await api('POST', `${conversationId}/notes`, who.assignee.token, { body: 'borrador' })).json();
    expect((await api('DELETE', `${conversationId}/notes/${assigneeNote.id}`, who.supervisor.token)).statusCode).toBe(204);
    expect((await api('DELETE', `${conversationId}/notes/${assigneeNote.id}`, who.supervisor.token)).statusCode).toBe(404);
  });
});

describe('notes in the history, never to the customer', () => {
  it('the history with include_notes places notes among the messages in time order, across pages; without it, messages only', async () => {
    const reply = await api('POST', `${conversationId}/messages/text`, who.assignee.token, { body: 'Sí, enviamos a todo el país' });
    expect(reply.statusCode).toBe(202);
    await api('POST', `${conversationId}/notes`, who.assignee.token, { body: 'nota después de responder' });
    const all: { kind?: string; text?: string; body?: string }[] = [];
    let cursor: string | null = null;
    do {
      const page = await api('GET', `${conversationId}/history?include_notes=true&limit=1${cursor ? `&cursor=${cursor}` : ''}`, who.assignee.token);
      expect(page.statusCode).toBe(200);
      all.push(...page.json().data);
      cursor = page.json().pagination.next_cursor;
    } while (cursor !== null);
    expect(all.map((i) => (i.kind === 'note' ? `note:${i.body}` : `message:${i.text}`))).toEqual([
      'note:nota después de responder',
      'message:Sí, enviamos a todo el país',
      expect.stringMatching(/^note:Listo /),
      'message:Hola, ¿tienen envío?',
    ]);
    const plain = (await api('GET', `${conversationId}/history`, who.assignee.token)).json().data;
    expect(plain.map((m: { text: string }) => m.text)).toEqual(['Sí, enviamos a todo el país', 'Hola, ¿tienen envío?']);
  });

  it('the visitor never receives a note: not on the widget socket, not in the widget history; the inbox preview stays the last message', async () => {
    await waitFor(() => visitorEvents.some((e) => JSON.stringify(e.payload).includes('Sí, enviamos a todo el país')));
    const seen = JSON.stringify(visitorEvents);
    for (const text of ['Revisar envío', 'Listo', 'nota después', 'del supervisor', 'borrador']) expect(seen).not.toContain(text);
    const history = await visitorRequest(t.app, site.websiteToken, visitor.visitor_token, { method: 'GET', path: '/messages' });
    expect(history.statusCode).toBe(200);
    expect(history.body).toContain('Sí, enviamos a todo el país');
    expect(history.body).not.toContain('nota después');
    const c = (await api('GET', `${conversationId}`, who.assignee.token)).json();
    expect(c.last_message_preview).toBe('Sí, enviamos a todo el país');
  });
});
