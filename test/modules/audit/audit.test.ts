/**
 * The audit trail (issue 54): each audited action writes exactly one entry with its actor and diff, in the
 * entity's chain; members with `audit.view` list and export their entity's entries only; the table refuses
 * UPDATE and DELETE; `audit verify` finds an edited and a removed entry; retention prunes a chain from its start
 * and leaves it verifiable.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { bearer, login, makeEntity, makeMember, tokenFor, type Member } from '../../helpers/factories.js';
import { CommandFailed, runCommand } from '../../../src/cli/index.js';
import { createAuditService } from '../../../src/modules/audit/index.js';
import { makeWebAccount } from '../../helpers/web-visitor.js';
import { makeChannelAccount } from '../../helpers/conversation-factories.js';
import { waitForConversation } from '../../helpers/interactions.js';
import { whatsAppMessage } from '../../../sim/communications/payloads.js';

interface Entry {
  id: number;
  seq: number;
  action: string;
  actor: { kind: string; user_id: number | null; employee_id: number | null };
  target: { type: string; id: string } | null;
  diff: { before?: Record<string, unknown>; after?: Record<string, unknown>; details?: Record<string, unknown> } | null;
  client_address: string | null;
  request_id: string | null;
}

let t: TestContext;
let e1: number;
let e2: number;
let admin: Member;
let adminToken: string;
let otherToken: string;

const call = (method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', url: string, token: string, payload?: object, headers: Record<string, string> = {}) =>
  t.app.inject({ method, url: `/api${url}`, headers: { ...bearer(token), ...headers }, ...(payload !== undefined ? { payload } : {}) });
const entries = async (query: string, token = adminToken): Promise<Entry[]> => {
  const res = await call('GET', `/audit/entries?limit=200&${query}`, token);
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ data: Entry[] }>().data;
};
const countOf = async (action: string, entityId: number | null = null) => {
  const { rows } = await t.database.executeSql('select count(*)::int as n from audit_entry where action = $1 and entity_id is not distinct from $2::integer', [
    action,
    entityId,
  ]);
  return rows[0]!.n as number;
};

beforeAll(async () => {
  t = await createTestApp({ env: { COMMUNICATIONS_PRIVILEGED_OPERATOR_EMAILS: 'ops-audit@example.com' } });
  e1 = (await makeEntity(t.database.db, 'Audited Company')).id;
  e2 = (await makeEntity(t.database.db, 'Audited elsewhere')).id;
  admin = await makeMember(t.database.db, {
    entityId: e1,
    codes: [
      'audit.view',
      'privacy.manage',
      'roles.view',
      'roles.create',
      'roles.edit',
      'subscriptions.view',
      'subscriptions.edit',
      'subscriptions.create',
      'leads.view',
      'cartera.export_excel',
      'cartera.leads_list.view',
      'reports.view',
      'entity_channel_accounts.view',
      'entity_channel_accounts.create',
      'entity_channel_accounts.edit',
      'communications.command_palette.view',
      'groups.create',
      'leads.create',
      'leads.edit',
      'contacts.create',
      'contacts.edit',
      'conversations.view_all',
      'api_keys.manage',
      'webhooks.manage',
    ],
    email: 'ops-audit@example.com',
  });
  adminToken = await tokenFor(t.app, admin);
  otherToken = await tokenFor(t.app, await makeMember(t.database.db, { entityId: e2, codes: ['audit.view'] }));
}, 60_000);
afterAll(async () => {
  await t?.close();
});

describe('audited actions', () => {
  it('a login and a refused login write one entry each, with the user, the request id and the address', async () => {
    const before = await countOf('auth.login', e1);
    await login(t.app, admin);
    expect(await countOf('auth.login', e1)).toBe(before + 1);
    const [entry] = await entries('action=auth.login');
    expect(entry).toMatchObject({
      actor: { kind: 'user', user_id: admin.userId, employee_id: admin.employeeId },
      target: { type: 'app_user', id: String(admin.userId) },
    });
    expect(entry!.request_id).toMatch(/^req-/);
    expect(entry!.client_address).toBe('127.0.0.1');

    const refused = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      headers: { 'x-request-id': 'audit-bad-password' },
      payload: { email: admin.email, password: 'wrong-password', entity_id: e1 },
    });
    expect(refused.statusCode).toBe(401);
    const [failed, ...more] = await entries('action=auth.login_failed');
    expect(more).toHaveLength(0);
    expect(failed).toMatchObject({
      actor: { kind: 'user', user_id: admin.userId },
      request_id: 'audit-bad-password',
      diff: { details: { code: 'invalid_credentials' } },
    });
    expect(JSON.stringify(failed)).not.toContain('wrong-password');
    // An address that is nobody's: outside any entity.
    const unknownBefore = await countOf('auth.login_failed', null);
    await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: 'nobody@example.com', password: 'whatever-pass', entity_id: e1 } });
    expect(await countOf('auth.login_failed', null)).toBe(unknownBefore + 1);
  });

  it('a role created and changed: one entry each, the change as the fields that differ', async () => {
    const created = await call('POST', '/roles', adminToken, { name: 'Auditada', permissions: ['leads.view'] });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json<{ id: number }>().id;
    const updated = await call('PATCH', `/roles/${id}`, adminToken, { description: 'changed', permissions: ['leads.view', 'roles.view'] });
    expect(updated.statusCode, updated.body).toBe(200);
    const list = await entries(`target_type=role&target_id=${id}`);
    expect(list.map((e) => e.action)).toEqual(['role.update', 'role.create']);
    expect(list[0]!.diff).toEqual({
      before: { description: null, permissions: ['leads.view'] },
      after: { description: 'changed', permissions: ['leads.view', 'roles.view'] },
    });
    expect(list[1]!.diff!.after).toMatchObject({ name: 'Auditada', permissions: ['leads.view'] });
    expect(list[0]!.actor).toMatchObject({ kind: 'user', user_id: admin.userId, employee_id: admin.employeeId });
    // A refused change writes nothing.
    expect((await call('PATCH', `/roles/${id}`, adminToken, { permissions: ['workflows.manage'] })).statusCode).toBe(403);
    expect(await entries(`target_type=role&target_id=${id}`)).toHaveLength(2);
  });

  it('a subscription whose role and overrides change: one entry with both sides', async () => {
    const member = await makeMember(t.database.db, { entityId: e1, codes: ['leads.view'] });
    const res = await call('PATCH', `/subscriptions/${member.subscriptionId}`, adminToken, { overrides: [{ code: 'roles.view', effect: 'ALLOW' }] });
    expect(res.statusCode, res.body).toBe(200);
    const [entry, ...more] = await entries(`action=subscription.&target_id=${member.subscriptionId}`);
    expect(more).toHaveLength(0);
    expect(entry).toMatchObject({
      action: 'subscription.update',
      diff: { before: { overrides: [] }, after: { overrides: [{ code: 'roles.view', effect: 'ALLOW' }] } },
    });
  });

  it('exports of the portfolio and of the reports: one entry each, naming format and filters', async () => {
    const xlsx = await call('GET', '/cartera/export.xlsx?kind=lead&search=acme', adminToken);
    expect(xlsx.statusCode, xlsx.body.slice(0, 200)).toBe(200);
    const csv = await call('GET', '/interactions/reports/daily.csv?from=2026-01-01&to=2026-01-31&group_by=channel', adminToken);
    expect(csv.statusCode, csv.body).toBe(200);
    const [cartera, ...moreCartera] = await entries('action=cartera.export');
    expect(moreCartera).toHaveLength(0);
    expect(cartera!.diff).toEqual({ details: { kind: 'lead', format: 'xlsx', filters: { search: 'acme' } } });
    const [report, ...moreReports] = await entries('action=report.export');
    expect(moreReports).toHaveLength(0);
    expect(report!.diff!.details).toMatchObject({ report: 'conversations.daily', format: 'csv', from: '2026-01-01', to: '2026-01-31', rows: 0 });
  });

  it('communications settings and website chat settings: one entry per change, secrets never written', async () => {
    const put = await call('PUT', '/interactions/communications/config', adminToken, { api_key: 'super-secret-key-123', external_app_id: 'app-1' });
    expect(put.statusCode, put.body).toBe(200);
    const [config, ...more] = await entries('action=communications.');
    expect(more).toHaveLength(0);
    expect(config).toMatchObject({
      action: 'communications.config.update',
      diff: { before: { external_app_id: null, api_key: '[redacted]' }, after: { external_app_id: 'app-1', api_key: '[redacted]' } },
    });
    const web = await makeWebAccount(t.app, adminToken, { greeting_text: 'Hola' });
    const rotated = await call('POST', `/entity-channel-accounts/${web.id}/web/identity-secret`, adminToken);
    expect(rotated.statusCode).toBe(201);
    const secret = rotated.json<{ identity_secret: string }>().identity_secret;
    const webEntries = await entries(`action=web_chat.&target_id=${web.id}`);
    expect(webEntries.map((e) => e.action)).toEqual(['web_chat.identity_secret.rotate', 'web_chat.settings.update']);
    expect(webEntries[1]!.diff!.after).toMatchObject({ greeting_text: 'Hola' });
    const everything = (await call('GET', '/audit/entries.csv', adminToken)).body;
    expect(everything).not.toContain('super-secret-key-123');
    expect(everything).not.toContain(secret);
  });
});

describe('deleting contacts and leads', () => {
  it('deletes a contact, then a lead with its contacts: one entry each naming no personal data; 404 elsewhere', async () => {
    const group = (await call('POST', '/groups', adminToken, { name: 'Borrables' })).json<{ id: number }>();
    const lead = (await call('POST', '/leads', adminToken, { group_id: group.id, name: 'Lead Borrable' })).json<{ id: number }>();
    const contact = (
      await call('POST', '/contacts', adminToken, { lead_id: lead.id, name: 'Ana Borrable', channels: [{ type: 'phone', identifier: '+50255501234' }] })
    ).json<{ id: number }>();
    const second = (await call('POST', '/contacts', adminToken, { lead_id: lead.id, name: 'Beto Borrable' })).json<{ id: number }>();
    expect((await call('DELETE', `/contacts/${contact.id}`, otherToken)).statusCode).toBe(403);
    const elsewhere = await tokenFor(t.app, await makeMember(t.database.db, { entityId: e2, codes: ['contacts.edit', 'leads.edit'] }));
    expect((await call('DELETE', `/contacts/${contact.id}`, elsewhere)).statusCode).toBe(404);
    expect((await call('DELETE', `/leads/${lead.id}`, elsewhere)).statusCode).toBe(404);
    expect((await call('DELETE', `/contacts/${contact.id}`, adminToken)).statusCode).toBe(204);
    expect((await call('GET', `/contacts/${contact.id}`, adminToken)).statusCode).toBe(404);
    expect((await call('DELETE', `/contacts/${contact.id}`, adminToken)).statusCode).toBe(404);
    // Its phone is free again.
    expect(
      (await call('POST', '/contacts', adminToken, { lead_id: lead.id, name: 'Otra', channels: [{ type: 'phone', identifier: '+50255501234' }] })).statusCode,
    ).toBe(201);
    expect((await call('DELETE', `/leads/${lead.id}`, adminToken)).statusCode).toBe(204);
    expect((await call('GET', `/contacts/${second.id}`, adminToken)).statusCode).toBe(404);
    const deletions = await entries('action=contact.delete');
    expect(deletions).toHaveLength(1);
    expect(deletions[0]).toMatchObject({ target: { type: 'contact', id: String(contact.id) }, diff: { details: { lead_id: lead.id, group_id: group.id } } });
    const [leadEntry, ...more] = await entries('action=lead.delete');
    expect(more).toHaveLength(0);
    expect(leadEntry).toMatchObject({ target: { type: 'lead', id: String(lead.id) }, diff: { details: { contacts: 2 } } });
    expect(JSON.stringify(await entries('action=lead.delete'))).not.toMatch(/Borrable|5550/);
  });

  it('refuses a contact or lead that a conversation names (409 record_in_use), and keeps everything', async () => {
    await makeChannelAccount(t.database.db, { entityId: e1, externalAccountId: 'PN-AUDIT' });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/interactions/webhooks/communications',
      payload: whatsAppMessage({ phoneNumberId: 'PN-AUDIT' }, { from: '50255507777', name: 'Cliente Hablador', text: 'hola' }),
    });
    expect(res.statusCode).toBe(200);
    await t.app.interactionsWorker.idle();
    const conversation = (await waitForConversation(t.app, adminToken, '50255507777')) as unknown as { contact_id: number; lead_id: number };
    expect((await call('DELETE', `/contacts/${conversation.contact_id}`, adminToken)).json()).toMatchObject({ status: 409, code: 'record_in_use' });
    expect((await call('DELETE', `/leads/${conversation.lead_id}`, adminToken)).json()).toMatchObject({ status: 409, code: 'record_in_use' });
    expect((await call('GET', `/contacts/${conversation.contact_id}`, adminToken)).statusCode).toBe(200);
    expect(await entries(`action=lead.delete&target_id=${conversation.lead_id}`)).toEqual([]);
  });
});

describe('reading the trail', () => {
  it('needs audit.view, filters by actor, action, target and time, and shows only the caller entity', async () => {
    const noView = await tokenFor(t.app, await makeMember(t.database.db, { entityId: e1, codes: ['leads.view'] }));
    expect((await call('GET', '/audit/entries', noView)).json()).toMatchObject({ status: 403, permission: 'audit.view' });
    expect(await entries('', otherToken)).toEqual([]);
    const mine = await entries(`actor_user_id=${admin.userId}`);
    expect(mine.length).toBeGreaterThan(3);
    expect(mine.every((e) => e.actor.user_id === admin.userId)).toBe(true);
    expect(await entries(`actor_user_id=${admin.userId}&from=2000-01-01T00:00:00Z&to=2000-01-02T00:00:00Z`)).toEqual([]);
    expect((await call('GET', '/audit/entries?from=2001-01-02T00:00:00Z&to=2001-01-01T00:00:00Z', adminToken)).json().code).toBe('validation_failed');
    const csv = await call('GET', '/audit/entries.csv?action=role.', adminToken);
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toContain('text/csv');
    const lines = csv.body.trim().split('\r\n');
    expect(lines[0]).toMatch(/^id,seq,occurred_at,actor_kind/);
    expect(lines.slice(1).map((l) => l.split(',')[7])).toEqual(['role.update', 'role.create']);
  });
});

describe('integrations', () => {
  it('audits API keys and webhook endpoints, naming the key as the actor when a key acts, never their secrets', async () => {
    const created = await call('POST', '/api-keys', adminToken, { name: 'ERP sync', permissions: ['webhooks.manage'] });
    expect(created.statusCode, created.body).toBe(201);
    const key = created.json<{ id: number; secret: string }>();
    const endpoint = await call('POST', '/webhooks/endpoints', key.secret, { url: 'https://hooks.example.com/crm', event_types: ['lead.created'] });
    expect(endpoint.statusCode, endpoint.body).toBe(201);
    const endpointId = endpoint.json<{ id: number }>().id;
    expect((await call('POST', `/webhooks/endpoints/${endpointId}/rotate-secret`, adminToken)).statusCode).toBe(200);
    expect((await call('POST', `/api-keys/${key.id}/revoke`, adminToken)).statusCode).toBe(200);

    const [keyCreated] = await entries('action=api_key.create');
    expect(keyCreated).toMatchObject({ actor: { kind: 'user', user_id: admin.userId }, target: { type: 'api_key', id: String(key.id) } });
    expect(keyCreated!.diff!.after).toMatchObject({ name: 'ERP sync', permissions: ['webhooks.manage'] });
    const [byKey] = await entries('action=webhook_endpoint.create');
    expect(byKey).toMatchObject({ actor: { kind: 'api_key', user_id: admin.userId }, target: { type: 'webhook_endpoint', id: String(endpointId) } });
    expect(await countOf('webhook_endpoint.rotate_secret', e1)).toBe(1);
    expect(await countOf('api_key.revoke', e1)).toBe(1);
    const trail = JSON.stringify(await entries('action=api_key.'));
    expect(trail).not.toContain(key.secret);
    expect(JSON.stringify(await entries('action=webhook_endpoint.'))).not.toContain('whsec_');
  });
});

describe('tamper evidence', () => {
  it('refuses UPDATE, DELETE and TRUNCATE of entries, whoever asks', async () => {
    for (const statement of [sql`update audit_entry set action = 'x'`, sql`delete from audit_entry`, sql`truncate audit_entry`]) {
      await expect(t.database.db.execute(statement)).rejects.toMatchObject({ cause: expect.objectContaining({ code: '42501' }) as unknown });
    }
    // A session setting does not open the door: only the audit_prune function may delete.
    await expect(t.database.db.execute(sql`select set_config('crm.audit_prune', 'on', false); delete from audit_entry`)).rejects.toThrow();
  });

  it('verify finds an edited entry and a removed one', async () => {
    const e3 = (await makeEntity(t.database.db, 'Tampered')).id;
    const trail = createAuditService({ db: t.database.db });
    for (let i = 0; i < 4; i++) await trail.record(t.database.db, { entityId: e3, actor: { kind: 'system' }, action: 'test.step', details: { i } });
    expect(await runCommand(t.database.db, 'audit', ['verify', '--entity', String(e3)])).toBe(`audit trail intact: 4 entries checked (entity ${e3})`);
    // Someone with the table owner's rights goes around the guard.
    const bypass = async (statement: ReturnType<typeof sql>) => {
      await t.database.db.execute(sql`alter table audit_entry disable trigger audit_entry_append_only`);
      try {
        await t.database.db.execute(statement);
      } finally {
        await t.database.db.execute(sql`alter table audit_entry enable trigger audit_entry_append_only`);
      }
    };
    await bypass(sql`update audit_entry set diff = '{"details":{"i":99}}' where chain_key = ${e3} and seq = 2`);
    await expect(runCommand(t.database.db, 'audit', ['verify', '--entity', String(e3)])).rejects.toThrow(/seq 2 \(entry \d+\): altered/);
    await bypass(sql`delete from audit_entry where chain_key = ${e3} and seq = 3`);
    const err = await runCommand(t.database.db, 'audit', ['verify', '--entity', String(e3)]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CommandFailed);
    expect((err as Error).message).toMatch(/seq 4 \(entry \d+\): missing/);
    await bypass(sql`delete from audit_entry where chain_key = ${e3} and seq = 4`);
    expect((await trail.verify(e3)).breaks.map((b) => b.problem)).toEqual(['altered', 'missing_tail']);
    // The other chains are untouched.
    expect((await trail.verify(e1)).breaks).toEqual([]);
  });

  it('retention removes the oldest entries of each chain and leaves the rest verifiable', async () => {
    const e4 = (await makeEntity(t.database.db, 'Retained')).id;
    const trail = createAuditService({ db: t.database.db });
    for (let i = 0; i < 3; i++) await trail.record(t.database.db, { entityId: e4, actor: { kind: 'system' }, action: 'test.step' });
    const token = await tokenFor(t.app, await makeMember(t.database.db, { entityId: e4, codes: ['privacy.manage'] }));
    expect((await call('PUT', '/audit/retention', token, { days: 30 })).json()).toEqual({ days: 30 });
    expect((await call('GET', '/audit/retention', token)).json()).toEqual({ days: 30 });
    // 31 days on, the four entries (the retention change too) are past 30 days; e1's are within 730.
    const e1Before = (await trail.verify(e1)).checked;
    expect(await trail.prune(new Date(Date.now() + 31 * 86_400_000))).toBeGreaterThanOrEqual(4);
    expect((await trail.verify(e4)).checked).toBe(0);
    expect((await trail.verify(e1)).checked).toBe(e1Before);
    await trail.record(t.database.db, { entityId: e4, actor: { kind: 'system' }, action: 'test.after_prune' });
    expect(await trail.verify(e4)).toEqual({ checked: 1, breaks: [] });
  });
});
