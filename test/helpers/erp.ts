/**
 * The ERP simulator for tests, over real HTTP on 127.0.0.1, and the app configuration pointing at it.
 * Small timeouts keep failure injection fast.
 */
import { sql } from 'drizzle-orm';
import { startErpSimulator, type ErpSimulator } from '../../sim/erp/server.js';
import { createEmptyErpData } from '../../sim/erp/data.js';
import type { Db } from '../../src/db/client.js';
import type { App } from '../../src/app.js';
import type { Member } from './factories.js';

export async function startTestErp(): Promise<ErpSimulator> {
  return startErpSimulator({ data: createEmptyErpData() });
}

/** App env for the simulator: every ERP URL at it, 1 s timeouts (generous for a loaded machine). */
export function erpEnv(sim: ErpSimulator, extra: Record<string, string> = {}): Record<string, string> {
  return { ERP_URL: sim.url, ERP_STAGING_URL: sim.url, AUTH_ERP: sim.url, ERP_TIMEOUT_MS: '1000', LOGIN_RATE_LIMIT_MAX: '1000', ...extra };
}

/** Gives a CRM entity an ERP id and registers that entity in the simulator. */
export async function linkEntity(db: Db, sim: ErpSimulator, entityId: number, erpEntityId: number, name = `ERP ${erpEntityId}`): Promise<void> {
  await db.execute(sql`update entity set erp_entity_id = ${erpEntityId} where id = ${entityId}`);
  if (!sim.data.entities.some((e) => e.id === erpEntityId)) sim.data.entities.push({ id: erpEntityId, name, logo: null });
}

let nextErpUserId = 7000;

/** Registers `member` in the simulator with the same password, member of the given ERP entities. */
export function erpUserFor(sim: ErpSimulator, member: Pick<Member, 'email' | 'password'>, erpEntityIds: number[], options: { active?: boolean } = {}) {
  const id = ++nextErpUserId;
  return sim.controls.addUser({
    id,
    email: member.email,
    name: `ERP ${member.email}`,
    password: member.password,
    selectedEntityId: erpEntityIds[0]!,
    memberships: erpEntityIds.map((e, i) => ({ entityId: e, employeeId: id * 10 + i, active: options.active ?? true })),
  });
}

export interface LoginResult {
  status: number;
  token: string;
  erpSession: Record<string, unknown>;
  body: Record<string, unknown>;
}

/** POST /api/auth/login returning status, token and the erp_session object. */
export async function loginWithErp(app: App, input: { email: string; password: string; entityId: number; erpAccessToken?: string }): Promise<LoginResult> {
  const res = await app.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: {
      email: input.email,
      password: input.password,
      entity_id: input.entityId,
      ...(input.erpAccessToken ? { erp_access_token: input.erpAccessToken } : {}),
    },
  });
  const body = res.json<Record<string, unknown>>();
  return { status: res.statusCode, token: (body.access_token as string) ?? '', erpSession: (body.erp_session as Record<string, unknown>) ?? {}, body };
}
