/**
 * The permission schema for clients, the caller's effective permissions (with `explain`) and the stored
 * catalogue (SPEC "Permissions", "Versioning").
 */
import type { Db } from '../../db/client.js';
import type { Principal } from '../../platform/auth/authenticator.js';
import { PERMISSIONS, PERMISSION_MODULES, SCHEMA_VERSION } from '../../platform/permissions/catalog.js';
import type { GrantReason, Resolution } from '../../platform/permissions/resolve.js';
import type { MeResponse, PermissionListResponse, PermissionSchemaResponse } from './permission.schemas.js';
import { listPermissionRecords } from './permission.repository.js';

const SCHEMA: PermissionSchemaResponse = {
  schemaVersion: SCHEMA_VERSION,
  modules: PERMISSION_MODULES.map((m) => ({
    key: m.key,
    label: m.label,
    permissions: PERMISSIONS.filter((p) => p.module === m.key).map((p) => ({ code: p.code, module: p.module, label: p.label, implies: [...p.implies] })),
  })),
};

/** What `me` answers that depends only on the resolution: computed once per resolution (shared by the authenticator). */
type ResolvedPart = Pick<MeResponse, 'super_admin' | 'role' | 'permissions' | 'capabilities'>;
const resolvedParts = new WeakMap<Resolution, ResolvedPart>();

function resolvedPartOf(resolution: Resolution): ResolvedPart {
  let part = resolvedParts.get(resolution);
  if (part === undefined) {
    const permissions = resolution.codes;
    // In the response schema's order (modules, then their codes), so the stored text reads as the schema writes it.
    const capabilities: Record<string, Record<string, boolean>> = {};
    for (const m of PERMISSION_MODULES) capabilities[m.key] = {};
    for (const p of PERMISSIONS) capabilities[p.module]![p.code] = permissions.has(p.code);
    const effective = resolution.effective;
    part = {
      super_admin: resolution.superAdmin,
      role: effective
        ? { id: effective.roleId, name: effective.roleName, source: resolution.roleSource ?? 'employee', subscription_id: effective.subscriptionId }
        : null,
      permissions: [...permissions].sort(),
      capabilities,
    };
    resolvedParts.set(resolution, part);
  }
  return part;
}

const SCHEMA_VERSION_MEMBER = `"schemaVersion":${JSON.stringify(SCHEMA_VERSION)}`;

/**
 * `meText` per principal, built once: requests with the same token share their principal while the database
 * reads alike (platform/auth/authenticator.ts).
 */
const meTexts = new WeakMap<Principal, string>();

export function createPermissionService(deps: { db: Db }) {
  return {
    schema(): PermissionSchemaResponse {
      return SCHEMA;
    },

    /** `me` with `explain`: why each code is granted and which were denied (the plain answer is `meText`). */
    explainedMe(principal: Principal): MeResponse {
      const { resolution } = principal;
      return {
        schemaVersion: SCHEMA_VERSION,
        user_id: principal.userId,
        entity_id: principal.entityId,
        employee_id: principal.employeeId,
        ...resolvedPartOf(resolution),
        explain: {
          granted: [...resolution.reasons].sort(([a], [b]) => a.localeCompare(b)).map(([code, reason]) => ({ code, reason: toReasonBody(reason) })),
          denied: [...resolution.denied].sort(([a], [b]) => a.localeCompare(b)).map(([code, d]) => ({ code, subscription_id: d.subscriptionId })),
        },
      };
    },

    /**
     * `me` without `explain` as its response body (`MeResponse` as JSON text, for `sendJsonText`): the
     * caller's ids around the resolution's part (built once per resolution), serialized once per principal.
     * Members in the schema's order, as the route's serializer writes them.
     */
    meText(principal: Principal): string {
      let text = meTexts.get(principal);
      if (text === undefined) {
        text = `{${SCHEMA_VERSION_MEMBER},"user_id":${principal.userId},"entity_id":${principal.entityId},"employee_id":${principal.employeeId},${JSON.stringify(resolvedPartOf(principal.resolution)).slice(1, -1)}}`;
        meTexts.set(principal, text);
      }
      return text;
    },

    async list(): Promise<PermissionListResponse> {
      return { data: await listPermissionRecords(deps.db) };
    },
  };
}
export type PermissionService = ReturnType<typeof createPermissionService>;

function toReasonBody(reason: GrantReason) {
  switch (reason.source) {
    case 'super_admin':
      return { source: reason.source, subscription_id: reason.subscriptionId };
    case 'role':
      return { source: reason.source, role_id: reason.roleId, role_name: reason.roleName };
    case 'allow_override':
      return { source: reason.source, subscription_id: reason.subscriptionId };
    case 'implied':
      return { source: reason.source, by: reason.by };
  }
}
