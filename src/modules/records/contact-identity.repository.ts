/** Drizzle queries behind contact-identity.service.ts: contacts by channel identifier, and sellers of a lead or group. */
import { and, asc, eq, sql } from 'drizzle-orm';
import { queryRows, type Db } from '../../db/client.js';
import { contact, contactChannel } from './contact.table.js';
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

/**
 * Creates group, lead, contact and the contact's channel `(type, identifier)` in one statement (the new
 * lead has no stored sellers to write: neither it nor its brand-new group can have an assignment yet); undefined
 * when the channel already exists (another writer won: the caller rolls its savepoint back, so the
 * group, lead and contact inserted here vanish with it).
 */
export async function insertContactWithChannel(db: Db, entityId: number, name: string, phone: string | null, type: ContactChannelType, identifier: string): Promise<ContactIdentity | undefined> {
  const [row] = await queryRows<{ contact_id: number; lead_id: number; group_id: number; channel_id: number | null }>(
    db,
    sql`with g as (insert into crm_group (entity_id, name) values (${entityId}, ${name}) returning id),
             l as (insert into lead (entity_id, group_id, name, phone) select ${entityId}, g.id, ${name}, ${phone} from g returning id, group_id),
             c as (insert into contact (entity_id, group_id, lead_id, name) select ${entityId}, l.group_id, l.id, ${name} from l returning id, lead_id, group_id),
             ch as (insert into contact_channel (entity_id, contact_id, type, identifier)
                    select ${entityId}, c.id, ${type}::contact_channel_type, ${identifier} from c
                    on conflict do nothing returning id)
        select c.id as contact_id, c.lead_id, c.group_id, (select id from ch) as channel_id from c`,
  );
  if (!row || row.channel_id === null) return undefined;
  return { contactId: Number(row.contact_id), leadId: Number(row.lead_id), groupId: Number(row.group_id) };
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
