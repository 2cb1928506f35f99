/**
 * Labels on contacts and leads (issue 49): put on and taken off one record or up to 500 at once. A contact
 * needs `contacts.edit`, a lead `leads.edit` (the routes check). Labels come from the entity's catalogue (the
 * labels module); their conversations show them too, source `contact` or `lead`.
 * Errors: 404 `not_found` (a record or label of another entity too); a bulk call answers 404 per missing record
 * and applies the rest, but a label that is not the entity's refuses the whole call before anything is applied.
 */
import type { Db } from '../../db/client.js';
import type { Principal } from '../../platform/auth/authenticator.js';
import { refusedItem, tallyBulk, type BulkItemResult } from '../../platform/http/bulk.js';
import { notFound } from '../../platform/errors.js';
import type { Labels } from '../labels/index.js';
import * as repo from './label-link.repository.js';
import type { LabelledRecord } from './label-link.repository.js';

export interface RecordLabels {
  /** Adds `labelIds` to the record; returns its label ids. */
  add(p: Principal, kind: LabelledRecord, id: number, labelIds: readonly number[]): Promise<{ label_ids: number[] }>;
  /** Takes `labelId` off the record (nothing to do when it is not there); returns its label ids. */
  remove(p: Principal, kind: LabelledRecord, id: number, labelId: number): Promise<{ label_ids: number[] }>;
  /** `label` or `unlabel` each of `ids` with `labelIds`: one result per record. */
  bulk(
    p: Principal,
    kind: LabelledRecord,
    body: { action: 'label' | 'unlabel'; ids: readonly number[]; label_ids: readonly number[] },
  ): Promise<{ action: string; succeeded: number; failed: number; results: BulkItemResult[] }>;
  /** The label ids of each of `ids` (ascending; a record without labels maps to `[]`). */
  labelIdsOf(kind: LabelledRecord, ids: readonly number[]): Promise<Map<number, number[]>>;
}

export function createRecordLabels(deps: { db: Db; labels: Pick<Labels, 'assertLabels'> }): RecordLabels {
  const { db } = deps;
  async function idsOf(kind: LabelledRecord, id: number): Promise<{ label_ids: number[] }> {
    return { label_ids: (await repo.labelIdsOf(db, kind, [id])).get(id) ?? [] };
  }
  async function assertRecord(p: Principal, kind: LabelledRecord, id: number): Promise<void> {
    if (!(await repo.existingRecords(db, kind, p.entityId, [id])).has(id)) throw notFound(kind, id);
  }
  return {
    async add(p, kind, id, labelIds) {
      await assertRecord(p, kind, id);
      await deps.labels.assertLabels(p.entityId, labelIds);
      await repo.addRecordLabels(db, kind, p.entityId, [id], labelIds, p.employeeId);
      return idsOf(kind, id);
    },
    async remove(p, kind, id, labelId) {
      await assertRecord(p, kind, id);
      await deps.labels.assertLabels(p.entityId, [labelId]);
      await repo.removeRecordLabels(db, kind, p.entityId, [id], [labelId]);
      return idsOf(kind, id);
    },
    async bulk(p, kind, body) {
      await deps.labels.assertLabels(p.entityId, body.label_ids);
      const existing = await repo.existingRecords(db, kind, p.entityId, body.ids);
      const present = body.ids.filter((id) => existing.has(id));
      // One statement for every record found: each item's check (is it a record of the entity?) is the lookup above.
      if (body.action === 'label') await repo.addRecordLabels(db, kind, p.entityId, present, body.label_ids, p.employeeId);
      else await repo.removeRecordLabels(db, kind, p.entityId, present, body.label_ids);
      return tallyBulk(
        body.action,
        body.ids.map((id) => (existing.has(id) ? { id, ok: true as const } : refusedItem(id, notFound(kind, id)))),
      );
    },
    async labelIdsOf(kind, ids) {
      const found = await repo.labelIdsOf(db, kind, ids);
      return new Map(ids.map((id) => [id, found.get(id) ?? []]));
    },
  };
}
