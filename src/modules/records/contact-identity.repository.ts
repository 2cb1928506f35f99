/**
 * Queries behind contact-identity.service.ts: contacts by channel identifier (one or many at once), their
 * creation with group, lead and channel, and the sellers of a lead or group.
 */
import { and, asc, eq, sql } from 'drizzle-orm';
import { preparedIn, queryRows, type Db } from '../../db/client.js';
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

/** One channel identifier to find or create, in `entityId`, already normalized. */
export interface ChannelKey {
  entityId: number;
  type: ContactChannelType;
  identifier: string;
}

const FIND_BY_CHANNELS = `
  select x.ord, c.id as contact_id, c.lead_id, c.group_id
    from unnest($1::int[], $2::int[], $3::text[], $4::text[]) as x(ord, entity_id, type, identifier)
    join contact_channel ch on ch.entity_id = x.entity_id and ch.type = x.type::contact_channel_type and ch.identifier = x.identifier
    join contact c on c.id = ch.contact_id`;

/** The contacts owning `keys`, by index in `keys` (missing: no contact has that channel). */
export async function findContactsByChannels(db: Db, keys: ChannelKey[]): Promise<Map<number, ContactIdentity>> {
  const found = new Map<number, ContactIdentity>();
  if (keys.length === 0) return found;
  const rows = await preparedIn<{ ord: number; contact_id: number; lead_id: number; group_id: number }>(db, 'records_find_contacts_by_channels', FIND_BY_CHANNELS, [
    keys.map((_, i) => i),
    keys.map((k) => k.entityId),
    keys.map((k) => k.type),
    keys.map((k) => k.identifier),
  ]);
  for (const r of rows) found.set(r.ord, { contactId: r.contact_id, leadId: r.lead_id, groupId: r.group_id });
  return found;
}

// Ids are drawn first so each input row knows its group, lead and contact: INSERT ... RETURNING cannot
// say which input row produced which id.
const INSERT_CONTACTS_WITH_CHANNELS = `
  with x as (
    select x.*, nextval(pg_get_serial_sequence('crm_group', 'id'))::int as group_id,
           nextval(pg_get_serial_sequence('lead', 'id'))::int as lead_id,
           nextval(pg_get_serial_sequence('contact', 'id'))::int as contact_id
      from unnest($1::int[], $2::int[], $3::text[], $4::text[], $5::text[], $6::text[]) as x(ord, entity_id, name, phone, type, identifier)
  ), g as (
    insert into crm_group (id, entity_id, name) select group_id, entity_id, name from x
  ), l as (
    insert into lead (id, entity_id, group_id, name, phone) select lead_id, entity_id, group_id, name, phone from x
  ), c as (
    insert into contact (id, entity_id, group_id, lead_id, name) select contact_id, entity_id, group_id, lead_id, name from x
  ), ch as (
    insert into contact_channel (entity_id, contact_id, type, identifier)
    select entity_id, contact_id, type::contact_channel_type, identifier from x
    on conflict do nothing returning contact_id
  )
  select x.ord, x.contact_id, x.lead_id, x.group_id, exists (select 1 from ch where ch.contact_id = x.contact_id) as channel_created from x`;

/**
 * Creates group, lead, contact and channel for every item (distinct keys) in one statement. Returns the
 * identities by index, or undefined when any channel already existed (another writer won): the caller
 * then rolls back its savepoint, which removes every row inserted here.
 */
export async function insertContactsWithChannels(db: Db, items: (ChannelKey & { name: string; phone: string | null })[]): Promise<ContactIdentity[] | undefined> {
  const rows = await preparedIn<{ ord: number; contact_id: number; lead_id: number; group_id: number; channel_created: boolean }>(
    db,
    'records_insert_contacts_with_channels',
    INSERT_CONTACTS_WITH_CHANNELS,
    [items.map((_, i) => i), items.map((k) => k.entityId), items.map((k) => k.name), items.map((k) => k.phone), items.map((k) => k.type), items.map((k) => k.identifier)],
  );
  if (rows.length !== items.length || rows.some((r) => !r.channel_created)) return undefined;
  const out: ContactIdentity[] = new Array<ContactIdentity>(items.length);
  for (const r of rows) out[r.ord] = { contactId: r.contact_id, leadId: r.lead_id, groupId: r.group_id };
  return out;
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
