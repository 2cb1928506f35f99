/** Drizzle queries behind contact-identity.service.ts: contacts by channel identifier, and sellers of a lead or group. */
import { and, asc, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { contact, contactChannel } from './contact.table.js';
import { crmGroup } from './group.table.js';
import { lead } from './lead.table.js';
import { groupAssignment, leadAssignment } from './assignment.table.js';
import type { ContactChannelType } from './channel-identifier.js';

export interface ContactIdentity {
  contactId: number;
  leadId: number;
  groupId: number;
}

export async function findContactByChannel(db: Db, entityId: number, type: ContactChannelType, identifier: string): Promise<ContactIdentity | undefined> {
  const [row] = await db
    .select({ contactId: contact.id, leadId: contact.leadId, groupId: contact.groupId })
    .from(contactChannel)
    .innerJoin(contact, eq(contact.id, contactChannel.contactId))
    .where(and(eq(contactChannel.entityId, entityId), eq(contactChannel.type, type), eq(contactChannel.identifier, identifier)))
    .limit(1);
  return row;
}

export async function insertGroupLeadContact(db: Db, entityId: number, name: string, phone: string | null): Promise<ContactIdentity> {
  const [group] = await db.insert(crmGroup).values({ entityId, name }).returning({ id: crmGroup.id });
  const [newLead] = await db.insert(lead).values({ entityId, groupId: group!.id, name, phone }).returning({ id: lead.id });
  const [newContact] = await db.insert(contact).values({ entityId, groupId: group!.id, leadId: newLead!.id, name }).returning({ id: contact.id });
  return { contactId: newContact!.id, leadId: newLead!.id, groupId: group!.id };
}

/** Inserts the channel unless (entity, type, identifier) exists; true when inserted. */
export async function insertChannelIfAbsent(db: Db, entityId: number, contactId: number, type: ContactChannelType, identifier: string): Promise<boolean> {
  const rows = await db.insert(contactChannel).values({ entityId, contactId, type, identifier }).onConflictDoNothing().returning({ id: contactChannel.id });
  return rows.length > 0;
}

export async function leadSellerIds(db: Db, entityId: number, leadId: number): Promise<number[]> {
  const rows = await db
    .select({ employeeId: leadAssignment.employeeId })
    .from(leadAssignment)
    .where(and(eq(leadAssignment.entityId, entityId), eq(leadAssignment.leadId, leadId)))
    .orderBy(asc(leadAssignment.createdAt), asc(leadAssignment.id));
  return rows.map((r) => r.employeeId);
}

export async function groupSellerIds(db: Db, entityId: number, groupId: number): Promise<number[]> {
  const rows = await db
    .select({ employeeId: groupAssignment.employeeId })
    .from(groupAssignment)
    .where(and(eq(groupAssignment.entityId, entityId), eq(groupAssignment.groupId, groupId)))
    .orderBy(asc(groupAssignment.createdAt), asc(groupAssignment.id));
  return rows.map((r) => r.employeeId);
}
