/**
 * The identity core's service: the one way other modules and the platform read users, entities and
 * memberships. Entities, users, employees (memberships), roles and subscriptions are identity's tables;
 * no other module queries them (docs/architecture.md).
 */
import type { Database, Db } from '../../db/client.js';
import type { PrincipalLoader } from '../../platform/auth/authenticator.js';
import { AppError, validationFailed } from '../../platform/errors.js';
import type { ErpMembership } from '../../integrations/erp/index.js';
import { createPrincipalLoader } from './principal.service.js';
import { findUserByEmail, findUserById, setPasswordHash, type UserRow } from './user.repository.js';
import { activeEmployeeIds, activePairs, findEmployeeInEntity, findEntity, isActiveEmployee, listMemberships } from './membership.repository.js';
import { applyErpMemberships, type MembershipChanges } from './membership-sync.js';
import { DEFAULT_ENTITY_TIME_ZONE } from './entity.table.js';

interface Membership {
  entityId: number;
  name: string;
  logoUrl: string | null;
  employeeId: number;
}

interface EntityProfile {
  id: number;
  name: string;
  /** IANA time zone of the entity. */
  timeZone: string;
  /** The entity's id in the ERP: `erp_entity_id` when set, else the CRM id (docs/decisions.md). */
  erpEntityId: number;
}

export interface IdentityService {
  /**
   * The guard's read of a user in an entity (platform `PrincipalLoader`): one round trip unless the grants
   * changed, or none when a route's statement read the principal along (`principalAlong`).
   */
  principals: PrincipalLoader;
  /** Keys `${userId}:${entityId}` of the pairs that are still active memberships (one statement). */
  activeMemberships: (pairs: { userId: number; entityId: number }[]) => Promise<Set<string>>;
  /**
   * Throws 400 `invalid_employee` (with `errors[]` naming `field`) unless `employeeId` is an active
   * employee of `entityId`. The one membership check behind assignments, routing members and
   * conversation assignment.
   */
  assertActiveMember: (entityId: number, employeeId: number, field?: string) => Promise<void>;
  /**
   * Throws 400 `validation_failed` with one `errors[]` item (`${field}/${index}`) per id of `employeeIds`
   * that is not an active employee of `entityId` (lists of employees in a request body).
   */
  assertActiveMembers: (entityId: number, employeeIds: readonly number[], field: string) => Promise<void>;
  findUserByEmail: (email: string) => Promise<UserRow | undefined>;
  findUserById: (id: number) => Promise<UserRow | undefined>;
  setPasswordHash: (userId: number, passwordHash: string) => Promise<void>;
  /** The user's active memberships, by entity id. */
  memberships: (userId: number) => Promise<Membership[]>;
  /** The entity, or undefined when it does not exist. */
  entity: (entityId: number) => Promise<EntityProfile | undefined>;
  /** The user of `employeeId` when it is an active employee of `entityId` (undefined otherwise: another entity's, inactive, unknown). */
  activeEmployeeUser: (entityId: number, employeeId: number) => Promise<number | undefined>;
  /** The name of employee `employeeId` of `entityId` (undefined for another entity's or an unknown one). */
  employeeName: (entityId: number, employeeId: number) => Promise<string | undefined>;
  /**
   * The entity's IANA time zone (its days for reports, invoices' "today", quote validity, SLA business
   * hours, scheduled workflows): `entity.time_zone`, or `DEFAULT_ENTITY_TIME_ZONE` (America/Guatemala, the
   * column's default) when the entity does not exist. The one lookup every module uses.
   */
  timeZoneOf: (entityId: number) => Promise<string>;
  /** Applies the ERP's memberships of `user` (docs/decisions.md "Membership reconciliation"). */
  applyErpMemberships: (user: { id: number; name: string }, memberships: ErpMembership[]) => Promise<MembershipChanges>;
}

export type { MembershipChanges };

/** `database` serves the principal lookup as a prepared statement; `db` everything else. */
export function createIdentityService(deps: { database: Database; db?: Db }): IdentityService {
  const db = deps.db ?? deps.database.db;
  return {
    principals: createPrincipalLoader(deps.database),
    async activeMemberships(pairs) {
      const rows = await activePairs(db, pairs);
      return new Set(rows.map((r) => `${r.userId}:${r.entityId}`));
    },
    async activeEmployeeUser(entityId, employeeId) {
      const row = await findEmployeeInEntity(db, entityId, employeeId);
      return row?.isActive ? row.userId : undefined;
    },
    async assertActiveMember(entityId, employeeId, field = '/body/employee_id') {
      if (await isActiveEmployee(db, entityId, employeeId)) return;
      const detail = `Employee ${employeeId} is not an active member of this entity`;
      throw new AppError(400, 'invalid_employee', 'Bad request', detail, { errors: [{ field, message: detail }] });
    },
    async assertActiveMembers(entityId, employeeIds, field) {
      const active = new Set(await activeEmployeeIds(db, entityId, [...new Set(employeeIds)]));
      const errors = employeeIds.flatMap((id, i) =>
        active.has(id) ? [] : [{ field: `${field}/${i}`, message: `employee ${id} is not an active member of this entity` }],
      );
      if (errors.length > 0) throw validationFailed(errors);
    },
    findUserByEmail: (email) => findUserByEmail(db, email),
    findUserById: (id) => findUserById(db, id),
    setPasswordHash: (userId, hash) => setPasswordHash(db, userId, hash),
    memberships: (userId) => listMemberships(db, userId),
    async entity(entityId) {
      const row = await findEntity(db, entityId);
      return row && { id: row.id, name: row.name, timeZone: row.timeZone, erpEntityId: row.erpEntityId ?? row.id };
    },
    async employeeName(entityId, employeeId) {
      return (await findEmployeeInEntity(db, entityId, employeeId))?.name;
    },
    async timeZoneOf(entityId) {
      return (await findEntity(db, entityId))?.timeZone ?? DEFAULT_ENTITY_TIME_ZONE;
    },
    applyErpMemberships: (user, memberships) => applyErpMemberships(db, user, memberships),
  };
}
