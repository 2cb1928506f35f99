/** Existence checks other modules use to scope their data to the records of an entity (custom field values, cartera). */
import type { Db } from '../../db/client.js';
import { findContactRow } from './contact.repository.js';
import { findGroup } from './group.repository.js';
import { findLead } from './lead.repository.js';

/** True when the group or contact `id` exists in `entityId` (another entity's record is absent). */
export function createRecordLookup(db: Db) {
  return async (recordType: 'group' | 'contact', entityId: number, id: number): Promise<boolean> =>
    recordType === 'group' ? (await findGroup(db, entityId, id)) !== undefined : (await findContactRow(db, entityId, id)) !== undefined;
}

/** The lead and group of contact `contactId` in `entityId`, or undefined for another entity's or an unknown contact. */
export function createContactPlacement(db: Db) {
  return async (entityId: number, contactId: number): Promise<{ contactId: number; leadId: number; groupId: number } | undefined> => {
    const row = await findContactRow(db, entityId, contactId);
    return row ? { contactId: row.id, leadId: row.leadId, groupId: row.groupId } : undefined;
  };
}

/** The group of lead `leadId` in `entityId` and its ERP client id (null for a lead), or undefined. */
export function createLeadPlacement(db: Db) {
  return async (entityId: number, leadId: number): Promise<{ leadId: number; groupId: number; erpId: string | null; name: string } | undefined> => {
    const row = await findLead(db, entityId, leadId);
    return row ? { leadId: row.id, groupId: row.groupId, erpId: row.erpId, name: row.name } : undefined;
  };
}
