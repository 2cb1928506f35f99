/** Groups, the top of the records hierarchy (SPEC "What the service does": group > lead/client > contact). */
import { toPage } from '../../platform/http/pagination.js';
import type { Db } from '../../db/client.js';
import type { Principal } from '../../platform/auth/authenticator.js';
import { notFound } from '../../platform/errors.js';
import type { Page } from '../../platform/http/pagination.js';
import type { CreateGroupBody, GroupListQuery, GroupResponse, UpdateGroupBody } from './group.schemas.js';
import { findGroup, insertGroup, listGroups, updateGroup, type GroupRow } from './group.repository.js';

function toGroupResponse(row: GroupRow): GroupResponse {
  return { id: row.id, name: row.name, created_at: row.createdAt.toISOString(), updated_at: row.updatedAt.toISOString() };
}

export function createGroupService(deps: { db: Db }) {
  const { db } = deps;
  return {
    async list(caller: Principal, query: GroupListQuery): Promise<Page<GroupResponse>> {
      const { rows, total } = await listGroups(db, caller.entityId, query);
      return toPage(query, rows, total, toGroupResponse);
    },
    /** Throws 404 `not_found` for an unknown id or another entity's group. */
    async get(caller: Principal, id: number): Promise<GroupResponse> {
      const row = await findGroup(db, caller.entityId, id);
      if (!row) throw notFound('group', id);
      return toGroupResponse(row);
    },
    async create(caller: Principal, body: CreateGroupBody): Promise<GroupResponse> {
      return toGroupResponse(await insertGroup(db, caller.entityId, { name: body.name.trim() }));
    },
    async update(caller: Principal, id: number, body: UpdateGroupBody): Promise<GroupResponse> {
      const row = await updateGroup(db, caller.entityId, id, body.name !== undefined ? { name: body.name.trim() } : {});
      if (!row) throw notFound('group', id);
      return toGroupResponse(row);
    },
  };
}
export type GroupService = ReturnType<typeof createGroupService>;
