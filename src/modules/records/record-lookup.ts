/** Existence checks other modules use to scope their data to the records of an entity (custom field values, cartera). */
import type { Db } from '../../db/client.js';
import { findContactRow } from './contact.repository.js';
import { findGroup } from './group.repository.js';

/** True when the group or contact `id` exists in `entityId` (another entity's record is absent). */
export function createRecordLookup(db: Db) {
  return async (recordType: 'group' | 'contact', entityId: number, id: number): Promise<boolean> =>
    recordType === 'group' ? (await findGroup(db, entityId, id)) !== undefined : (await findContactRow(db, entityId, id)) !== undefined;
}
