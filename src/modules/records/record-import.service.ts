/**
 * What imports (issue 52) may do to records, a batch at a time inside the import's own change: look leads,
 * groups and channel holders up by many values at once, create leads and contacts (each publishing its
 * `lead.created` / `contact.created` like a single create, `source: 'import'`, collected in the change and
 * published once it commits) and update them. The rules of an import (what matches, what is an error) are the
 * imports module's; this service keeps records' own (stored sellers, normalized channels, events).
 */
import type { Db } from '../../db/client.js';
import type { PublishingUnitOfWork } from '../../platform/transactions/transaction.js';
import type { ContactChannelType } from './channel-identifier.js';
import type { LeadValues } from './lead.repository.js';
import {
  channelHoldersOf,
  groupIdsOf,
  insertContacts,
  insertLeads,
  leadsBy,
  updateContactsValues,
  updateLeadsValues,
  type ContactInsert,
  type LeadMatchColumn,
} from './record-import.repository.js';

export type { LeadMatchColumn } from './record-import.repository.js';
type ImportedLeadValues = Omit<LeadValues, 'groupId'>;
export type ImportedChannel = { type: ContactChannelType; identifier: string };

export interface RecordImport {
  /** The ids among `ids` that are groups of the entity (another entity's group is absent). */
  groupIds(tx: Db, entityId: number, ids: number[]): Promise<Set<number>>;
  /** Leads whose `column` is among `values`: value (as text) → the oldest one's id and group. */
  leadsBy(tx: Db, entityId: number, column: LeadMatchColumn | 'id', values: (string | number)[]): Promise<Map<string, { id: number; groupId: number }>>;
  /** Holders of channel identifiers: `type:identifier` → contact id. */
  channelHolders(tx: Db, entityId: number, keys: ImportedChannel[]): Promise<Map<string, number>>;
  /** Creates leads (with stored sellers) and publishes `lead.created` for each; ids in order. */
  createLeads(
    unit: PublishingUnitOfWork,
    entityId: number,
    employeeId: number | null,
    items: (ImportedLeadValues & { groupId: number; name: string })[],
  ): Promise<number[]>;
  updateLeads(tx: Db, entityId: number, items: { id: number; values: ImportedLeadValues }[]): Promise<void>;
  /** Creates contacts with their manual channels and publishes `contact.created` (`source: 'import'`) for each; ids in order. */
  createContacts(unit: PublishingUnitOfWork, entityId: number, employeeId: number | null, items: ContactInsert[]): Promise<number[]>;
  /** Renames contacts and adds channels they lack. */
  updateContacts(tx: Db, entityId: number, items: { id: number; name?: string; channels: ImportedChannel[] }[]): Promise<void>;
}

export function createRecordImport(): RecordImport {
  return {
    groupIds: groupIdsOf,
    leadsBy,
    channelHolders: channelHoldersOf,
    async createLeads(unit, entityId, employeeId, items) {
      const rows = await insertLeads(unit.tx, entityId, items);
      for (const r of rows) {
        unit.events.domainEvent('lead.created', {
          entityId,
          leadId: r.id,
          groupId: r.groupId,
          createdByEmployeeId: employeeId,
          occurredAt: r.createdAt.toISOString(),
        });
      }
      return rows.map((r) => r.id);
    },
    updateLeads: updateLeadsValues,
    async createContacts(unit, entityId, employeeId, items) {
      const rows = await insertContacts(unit.tx, entityId, items);
      rows.forEach((r, i) => {
        const item = items[i]!;
        unit.events.domainEvent('contact.created', {
          entityId,
          contactId: r.id,
          leadId: item.leadId,
          groupId: item.groupId,
          createdByEmployeeId: employeeId,
          source: 'import',
          occurredAt: r.createdAt.toISOString(),
        });
      });
      return rows.map((r) => r.id);
    },
    updateContacts: updateContactsValues,
  };
}
