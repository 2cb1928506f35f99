/**
 * Data factories for tests: entities, users with memberships, roles and subscriptions, and tokens
 * obtained the way a client would (through `POST /api/auth/login`).
 */
import { randomBytes } from 'node:crypto';
import type { App } from '../../src/app.js';
import type { Db } from '../../src/db/client.js';
import { createDirectoryService } from '../../src/modules/identity/directory.service.js';

const unique = () => randomBytes(4).toString('hex');

export async function makeEntity(db: Db, name = `Entity ${unique()}`) {
  return createDirectoryService(db).ensureEntity({ name });
}

export interface Member {
  userId: number;
  employeeId: number;
  entityId: number;
  email: string;
  password: string;
  roleId: number | undefined;
  subscriptionId: number | undefined;
}

/** The conversation codes every role held before they existed (migration 0010 grants them to existing roles). */
export const ALL_CONVERSATIONS = ['conversations.view_all', 'conversations.reply_any'];

/**
 * A user with an employee record in `entityId` and an entity role subscribed at the employee level with
 * `codes` plus, unless `conversations: 'restricted'`, `ALL_CONVERSATIONS` (members see and answer every
 * conversation, as every role did before conversation visibility). With `conversations: 'restricted'` and
 * no `codes` the member has no role. `superAdmin` adds a global super_admin subscription.
 */
export async function makeMember(
  db: Db,
  opts: {
    entityId: number;
    codes?: string[];
    conversations?: 'all' | 'restricted';
    superAdmin?: boolean;
    overrides?: { code: string; effect: 'ALLOW' | 'DENY' }[];
    name?: string;
    email?: string;
  },
): Promise<Member> {
  if ((opts.conversations ?? 'all') === 'all') opts = { ...opts, codes: [...(opts.codes ?? []), ...ALL_CONVERSATIONS] };
  const dir = createDirectoryService(db);
  const email = opts.email ?? `user-${unique()}@example.com`;
  const password = `pw-${unique()}`;
  const name = opts.name ?? `User ${email}`;
  const user = await dir.upsertUser({ email, name, password });
  const employee = await dir.ensureEmployee({ userId: user.id, entityId: opts.entityId, name });
  let roleId: number | undefined;
  let subscriptionId: number | undefined;
  if (opts.codes) {
    const role = await dir.ensureRole({ entityId: opts.entityId, name: `role-${unique()}`, permissions: opts.codes });
    roleId = role.id;
    subscriptionId = await dir.subscribe({ employeeId: employee.id, entityId: opts.entityId, roleId: role.id, overrides: opts.overrides ?? [] });
  }
  if (opts.superAdmin) {
    const sa = await dir.ensureSuperAdminRole();
    await dir.subscribe({ userId: user.id, entityId: null, roleId: sa.id });
  }
  return { userId: user.id, employeeId: employee.id, entityId: opts.entityId, email, password, roleId, subscriptionId };
}

/** Adds a membership of an existing user in another entity. */
export async function addMembership(db: Db, userId: number, entityId: number) {
  return createDirectoryService(db).ensureEmployee({ userId, entityId, name: `Member ${userId}` });
}

/** Logs in through the API and returns the access token (throws on a non-200 answer). */
export async function login(app: App, member: Pick<Member, 'email' | 'password' | 'entityId'>, entityId = member.entityId): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: member.email, password: member.password, entity_id: entityId } });
  if (res.statusCode !== 200) throw new Error(`login failed: ${res.statusCode} ${res.body}`);
  return res.json<{ access_token: string }>().access_token;
}

/** A token for `member` signed directly (no login round trip, no rate limit); same claims as login. */
export async function tokenFor(app: App, member: Pick<Member, 'userId' | 'entityId'>): Promise<string> {
  const { claimsFor } = await import('../../src/modules/auth/auth.service.js');
  const principal = await app.ctx.authenticator.principalFor(member.userId, member.entityId, 'web');
  if (!principal) throw new Error(`user ${member.userId} is not a member of entity ${member.entityId}`);
  return (await app.ctx.tokens.sign(claimsFor(principal))).token;
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
