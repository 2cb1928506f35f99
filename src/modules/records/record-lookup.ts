/** Existence checks other modules use to scope their data to the records of an entity (custom field values, cartera). */
import type { Db } from '../../db/client.js';
import { findContactRow, selectContactViews } from './contact.repository.js';
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

/** What a message may say of a conversation's customer (canned replies' variables, issue 49). */
export interface RecordCard {
  contact: { name: string; phone: string | null; email: string | null } | null;
  /** `group_id`: the lead's group now (a conversation keeps the `group_id` it opened with). */
  lead: { name: string; erp_id: string | null; email: string | null; phone: string | null; tax_id: string | null; group_id: number } | null;
}

/** Contact `contactId` (its first phone and e-mail) and lead `leadId` of `entityId`; null for an absent or another entity's one. */
export function createRecordCards(db: Db) {
  return async (entityId: number, ids: { contactId: number | null; leadId: number | null }): Promise<RecordCard> => {
    const [view] = ids.contactId === null ? [] : await selectContactViews(db, entityId, { id: ids.contactId, limit: 1, offset: 0 });
    const lead = ids.leadId === null ? undefined : await findLead(db, entityId, ids.leadId);
    const first = (type: string) => view?.channels.find((c) => c.type === type)?.identifier ?? null;
    return {
      contact: view ? { name: view.name, phone: first('phone') ?? first('whatsapp'), email: first('email') } : null,
      lead: lead ? { name: lead.name, erp_id: lead.erpId, email: lead.email, phone: lead.phone, tax_id: lead.taxId, group_id: lead.groupId } : null,
    };
  };
}
