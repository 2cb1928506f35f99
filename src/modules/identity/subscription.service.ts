/**
 * Subscriptions and their overrides (SPEC "Roles, subscriptions and permissions", "Permission
 * resolution"). Entity subscriptions belong to the caller's active entity; global subscriptions reach
 * every entity, so only a super_admin sees or manages them. Changes apply to the next request.
 */
import { isUniqueViolation } from '../../db/db-errors.js';
import type { Db } from '../../db/client.js';
import type { Principal } from '../../platform/auth/authenticator.js';
import { badRequest, conflict, forbidden, notFound, validationFailed } from '../../platform/errors.js';
import { findRole } from './role.repository.js';
import { assertCanGrant, assertKnownCodes, assertNotOwnSubscription, assertSuperAdmin, isSuperAdminRole } from './admin.rules.js';
import type { CreateSubscriptionBody, OverrideInput, SubscriptionListQuery, SubscriptionResponse, UpdateSubscriptionBody } from './subscription.schemas.js';
import {
  insertSubscription,
  isSuperAdminSubject,
  listSubscriptions,
  replaceOverrides,
  updateSubscriptionRole,
  type SubscriptionRow,
} from './subscription.repository.js';
import { findEmployeeInEntity, findEmployeeOfUser } from './membership.repository.js';
import { transaction } from '../../platform/transactions/transaction.js';
import { actorOf, type AuditTrail } from '../audit/index.js';

function toSubscriptionResponse(row: SubscriptionRow): SubscriptionResponse {
  return {
    id: row.id,
    subject: row.employeeId !== null ? 'employee' : 'user',
    employee_id: row.employeeId,
    user_id: row.userId,
    scope: row.entityId === null ? 'global' : 'entity',
    entity_id: row.entityId,
    role: { id: row.roleId, name: row.roleName },
    overrides: row.overrides,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

function validateOverrides(caller: Principal, overrides: OverrideInput[]): void {
  assertKnownCodes(
    overrides.map((o) => o.code),
    '/body/overrides',
  );
  assertCanGrant(
    caller,
    overrides.filter((o) => o.effect === 'ALLOW').map((o) => o.code),
    'ALLOW overrides for',
  );
  const seen = new Set<string>();
  const errors = overrides.flatMap((o, i) =>
    seen.has(o.code) ? [{ field: `/body/overrides/${i}`, message: `duplicate override for ${o.code}` }] : (seen.add(o.code), []),
  );
  if (errors.length > 0) throw validationFailed(errors);
}

/** `audit` records subscription and override changes (issue 54), in their transaction. */
export function createSubscriptionService(deps: { db: Db; audit: AuditTrail }) {
  const { db, audit } = deps;

  async function get(caller: Principal, id: number): Promise<SubscriptionResponse> {
    const [row] = await listSubscriptions(db, caller.entityId, { includeGlobal: caller.resolution.superAdmin, id });
    if (!row) throw notFound('subscription', id);
    return toSubscriptionResponse(row);
  }

  async function checkRole(caller: Principal, roleId: number, global: boolean) {
    const target = await findRole(db, caller.entityId, roleId);
    if (!target) throw badRequest('unknown_role', `Role ${roleId} does not exist`);
    if (isSuperAdminRole(target.name)) assertSuperAdmin(caller, 'grant super_admin');
    if (global && target.entityId !== null) throw badRequest('role_scope_mismatch', 'A global subscription needs a global role');
    assertCanGrant(caller, target.permissions, 'a role with');
    return target;
  }

  /** 403 `super_admin_protected`: only a super_admin changes the subscriptions of a super_admin. */
  async function assertNotSuperAdminSubject(caller: Principal, subject: { employeeId: number | null; userId: number | null }) {
    if (!caller.resolution.superAdmin && (await isSuperAdminSubject(db, subject))) {
      throw forbidden('super_admin_protected', "Only a super_admin may change a super_admin's subscriptions");
    }
  }

  return {
    get,
    async list(caller: Principal, query: SubscriptionListQuery) {
      const rows = await listSubscriptions(db, caller.entityId, {
        includeGlobal: caller.resolution.superAdmin,
        employeeId: query.employee_id,
        userId: query.user_id,
      });
      return { data: rows.map(toSubscriptionResponse) };
    },

    async create(caller: Principal, body: CreateSubscriptionBody): Promise<SubscriptionResponse> {
      if ((body.employee_id === undefined) === (body.user_id === undefined)) {
        throw validationFailed([{ field: '/body', message: 'give exactly one of employee_id and user_id' }]);
      }
      const global = body.scope === 'global';
      const overrides = body.overrides ?? [];
      validateOverrides(caller, overrides);
      if (global) {
        assertSuperAdmin(caller, 'manage global subscriptions');
        if (body.user_id === undefined) throw badRequest('invalid_scope', 'A global subscription belongs to a user, not an employee');
      }
      const subject = { employeeId: body.employee_id ?? null, userId: body.user_id ?? null };
      assertNotOwnSubscription(caller, subject);
      if (body.employee_id !== undefined && !(await findEmployeeInEntity(db, caller.entityId, body.employee_id))) {
        throw notFound('employee', body.employee_id);
      }
      if (body.user_id !== undefined && !global && !(await findEmployeeOfUser(db, caller.entityId, body.user_id))) {
        throw notFound('user', body.user_id);
      }
      await checkRole(caller, body.role_id, global);
      await assertNotSuperAdminSubject(caller, subject);
      try {
        const id = await transaction(db, async ({ tx }) => {
          const newId = await insertSubscription(tx, {
            employeeId: body.employee_id ?? null,
            userId: body.user_id ?? null,
            entityId: global ? null : caller.entityId,
            roleId: body.role_id,
          });
          await replaceOverrides(tx, newId, overrides);
          await audit.record(tx, {
            entityId: caller.entityId,
            actor: actorOf(caller),
            action: 'subscription.create',
            target: { type: 'subscription', id: newId },
            after: { employee_id: subject.employeeId, user_id: subject.userId, scope: global ? 'global' : 'entity', role_id: body.role_id, overrides },
          });
          return newId;
        });
        return await get(caller, id);
      } catch (err) {
        if (isUniqueViolation(err)) throw conflict('already_exists', 'This subject already has a subscription at that level');
        throw err;
      }
    },

    async update(caller: Principal, id: number, body: UpdateSubscriptionBody): Promise<SubscriptionResponse> {
      const current = await get(caller, id);
      if (current.scope === 'global' || current.role.name === 'super_admin') assertSuperAdmin(caller, 'edit this subscription');
      const subject = { employeeId: current.employee_id, userId: current.user_id };
      assertNotOwnSubscription(caller, subject);
      await assertNotSuperAdminSubject(caller, subject);
      if (body.overrides) validateOverrides(caller, body.overrides);
      if (body.role_id !== undefined) await checkRole(caller, body.role_id, current.scope === 'global');
      await transaction(db, async ({ tx }) => {
        if (body.role_id !== undefined) await updateSubscriptionRole(tx, id, body.role_id);
        if (body.overrides) await replaceOverrides(tx, id, body.overrides);
        const before = { role_id: current.role.id, overrides: current.overrides };
        const after = { role_id: body.role_id ?? current.role.id, overrides: body.overrides ?? current.overrides };
        await audit.record(tx, {
          entityId: caller.entityId,
          actor: actorOf(caller),
          action: 'subscription.update',
          target: { type: 'subscription', id },
          before,
          after,
        });
      });
      return get(caller, id);
    },
  };
}
export type SubscriptionService = ReturnType<typeof createSubscriptionService>;
