/**
 * Roles (SPEC "Roles, subscriptions and permissions"): entity roles belong to the caller's active entity;
 * global roles (including `super_admin`) are shared and only a super_admin creates or edits them.
 */
import type { Db } from '../../db/client.js';
import type { Principal } from '../../platform/auth/authenticator.js';
import { conflict, notFound } from '../../platform/errors.js';
import type { CreateRoleBody, RoleResponse, UpdateRoleBody } from './role.schemas.js';
import { findRole, findRoleByName, insertRole, listRoles, setRolePermissions, updateRole, type RoleRow } from './role.repository.js';
import { assertCanGrant, assertKnownCodes, assertNotOwnRole, assertSuperAdmin, isSuperAdminRole } from './admin.rules.js';
import { transaction } from '../../platform/transactions/transaction.js';
import { actorOf, type AuditTrail } from '../audit/index.js';

function toRoleResponse(row: RoleRow): RoleResponse {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    scope: row.entityId === null ? 'global' : 'entity',
    permissions: row.permissions,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** `audit` records role creations and changes (issue 54), in their transaction. */
export function createRoleService(deps: { db: Db; audit: AuditTrail }) {
  const { db, audit } = deps;

  async function get(caller: Principal, id: number): Promise<RoleResponse> {
    const row = await findRole(db, caller.entityId, id);
    if (!row) throw notFound('role', id);
    return toRoleResponse(row);
  }

  return {
    async list(caller: Principal) {
      return { data: (await listRoles(db, caller.entityId)).map(toRoleResponse) };
    },
    get,

    async create(caller: Principal, body: CreateRoleBody): Promise<RoleResponse> {
      assertKnownCodes(body.permissions, '/body/permissions');
      assertCanGrant(caller, body.permissions, 'a role with');
      const global = body.scope === 'global';
      if (global || isSuperAdminRole(body.name)) assertSuperAdmin(caller, 'create a global or super_admin role');
      const entityId = global ? null : caller.entityId;
      if (await findRoleByName(db, entityId, body.name)) throw conflict('already_exists', `A role named ${body.name} already exists`);
      const row = await transaction(db, async ({ tx }) => {
        const inserted = await insertRole(tx, { entityId, name: body.name, description: body.description ?? null }, body.permissions);
        await audit.record(tx, {
          entityId: caller.entityId,
          actor: actorOf(caller),
          action: 'role.create',
          target: { type: 'role', id: inserted.id },
          after: { name: body.name, description: body.description ?? null, scope: global ? 'global' : 'entity', permissions: [...body.permissions].sort() },
        });
        return inserted;
      });
      return get(caller, row.id);
    },

    async update(caller: Principal, id: number, body: UpdateRoleBody): Promise<RoleResponse> {
      const existing = await findRole(db, caller.entityId, id);
      if (!existing) throw notFound('role', id);
      if (existing.entityId === null || (body.name !== undefined && isSuperAdminRole(body.name))) {
        assertSuperAdmin(caller, 'edit a global or super_admin role');
      }
      assertNotOwnRole(caller, id);
      if (body.permissions) {
        assertKnownCodes(body.permissions, '/body/permissions');
        assertCanGrant(caller, body.permissions, 'a role with');
      }
      if (body.name !== undefined && body.name !== existing.name && (await findRoleByName(db, existing.entityId, body.name))) {
        throw conflict('already_exists', `A role named ${body.name} already exists`);
      }
      await transaction(db, async ({ tx }) => {
        const fields = {
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.description !== undefined ? { description: body.description } : {}),
        };
        await updateRole(tx, id, fields);
        if (body.permissions) await setRolePermissions(tx, id, body.permissions);
        const before = { name: existing.name, description: existing.description, permissions: [...existing.permissions].sort() };
        const after = { ...before, ...fields, ...(body.permissions ? { permissions: [...new Set(body.permissions)].sort() } : {}) };
        await audit.record(tx, { entityId: caller.entityId, actor: actorOf(caller), action: 'role.update', target: { type: 'role', id }, before, after });
      });
      return get(caller, id);
    },
  };
}
export type RoleService = ReturnType<typeof createRoleService>;
