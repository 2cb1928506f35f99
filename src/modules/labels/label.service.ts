/**
 * The label catalogue (issue 49): one per entity, `name` (unique whatever its case), `color` (`#rrggbb`) and an
 * optional `description`. Every member reads it; `labels.manage` writes it. The subjects' owners (interactions for
 * conversations, records for contacts and leads) keep the links and ask this service whether ids are labels of
 * the entity.
 * Errors: 404 `not_found` (another entity's label too), 409 `label_name_taken`.
 */
import type { Db } from '../../db/client.js';
import { isUniqueViolation } from '../../db/db-errors.js';
import type { Principal } from '../../platform/auth/authenticator.js';
import { conflict, notFound } from '../../platform/errors.js';
import * as repo from './label.repository.js';
import type { CreateLabelBody, LabelResponse, UpdateLabelBody } from './label.schemas.js';

export interface Labels {
  list(p: Principal): Promise<{ data: LabelResponse[] }>;
  create(p: Principal, body: CreateLabelBody): Promise<LabelResponse>;
  update(p: Principal, id: number, body: UpdateLabelBody): Promise<LabelResponse>;
  remove(p: Principal, id: number): Promise<void>;
  /** Throws 404 `not_found` naming the first of `ids` that is not a label of the entity. */
  assertLabels(entityId: number, ids: readonly number[]): Promise<void>;
  /** The ids among `ids` that are not labels of the entity (another entity's, deleted, never made), each once, in order. */
  unknownLabels(entityId: number, ids: readonly number[]): Promise<number[]>;
}

function toResponse(r: repo.LabelRow): LabelResponse {
  return {
    id: r.id,
    name: r.name,
    color: r.color.toLowerCase(),
    description: r.description,
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
  };
}

const nameTaken = (name: string) => conflict('label_name_taken', `The entity already has a label named "${name}"`);

export function createLabels(deps: { db: Db }): Labels {
  const { db } = deps;
  return {
    async list(p) {
      return { data: (await repo.listLabels(db, p.entityId)).map(toResponse) };
    },
    async create(p, body) {
      const name = body.name.trim();
      try {
        return toResponse(await repo.insertLabel(db, { entityId: p.entityId, name, color: body.color.toLowerCase(), description: body.description ?? null }));
      } catch (err) {
        if (isUniqueViolation(err)) throw nameTaken(name);
        throw err;
      }
    },
    async update(p, id, body) {
      const values: { name?: string; color?: string; description?: string | null } = {};
      if (body.name !== undefined) values.name = body.name.trim();
      if (body.color !== undefined) values.color = body.color.toLowerCase();
      if (body.description !== undefined) values.description = body.description;
      try {
        const row = await repo.updateLabel(db, p.entityId, id, values);
        if (!row) throw notFound('label', id);
        return toResponse(row);
      } catch (err) {
        if (isUniqueViolation(err)) throw nameTaken(values.name ?? '');
        throw err;
      }
    },
    async remove(p, id) {
      if (!(await repo.deleteLabel(db, p.entityId, id))) throw notFound('label', id);
    },
    async assertLabels(entityId, ids) {
      const [missing] = await unknownLabels(entityId, ids);
      if (missing !== undefined) throw notFound('label', missing);
    },
    unknownLabels,
  };

  async function unknownLabels(entityId: number, ids: readonly number[]): Promise<number[]> {
    if (ids.length === 0) return [];
    const found = new Set((await repo.findLabels(db, entityId, ids)).map((r) => r.id));
    return [...new Set(ids)].filter((id) => !found.has(id));
  }
}
