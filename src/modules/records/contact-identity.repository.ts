/**
 * Queries behind contact-identity.service.ts: contacts by channel identifier (one or many at once), their
 * creation with group, lead and channel, and the sellers of a lead or group.
 */
import { and, asc, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { runShapedIn, runStatementIn } from '../../db/statement.js';
import { FIND_CONTACTS_BY_CHANNELS, INSERT_CONTACT_WITH_CHANNEL, INSERT_CONTACTS_WITH_CHANNELS } from './contact-identity.sql.js';
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
export async function insertContactWithChannel(
  db: Db,
  entityId: number,
  name: string,
  phone: string | null,
  type: ContactChannelType,
  identifier: string,
): Promise<ContactIdentity | undefined> {
  const [row] = await runShapedIn<{ contact_id: number; lead_id: number; group_id: number; channel_id: number | null }, undefined>(
    db,
    INSERT_CONTACT_WITH_CHANNEL,
    undefined,
    {
      entityId,
      name,
      phone,
      type,
      identifier,
    },
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

/** The contacts owning `keys`, by index in `keys` (missing: no contact has that channel). */
export async function findContactsByChannels(db: Db, keys: ChannelKey[]): Promise<Map<number, ContactIdentity>> {
  const found = new Map<number, ContactIdentity>();
  if (keys.length === 0) return found;
  const rows = await runStatementIn<{ ord: number; contact_id: number; lead_id: number; group_id: number }>(db, FIND_CONTACTS_BY_CHANNELS, [
    keys.map((_, i) => i),
    keys.map((k) => k.entityId),
    keys.map((k) => k.type),
    keys.map((k) => k.identifier),
  ]);
  for (const r of rows) found.set(r.ord, { contactId: r.contact_id, leadId: r.lead_id, groupId: r.group_id });
  return found;
}

/**
 * Creates group, lead, contact and channel for every item (distinct keys) in one statement. Returns the
 * identities by index, or undefined when any channel already existed (another writer won): the caller
 * then rolls back its savepoint, which removes every row inserted here.
 */
export async function insertContactsWithChannels(
  db: Db,
  items: (ChannelKey & { name: string; phone: string | null })[],
): Promise<ContactIdentity[] | undefined> {
  const rows = await runStatementIn<{ ord: number; contact_id: number; lead_id: number; group_id: number; channel_created: boolean }>(
    db,
    INSERT_CONTACTS_WITH_CHANNELS,
    [
      items.map((_, i) => i),
      items.map((k) => k.entityId),
      items.map((k) => k.name),
      items.map((k) => k.phone),
      items.map((k) => k.type),
      items.map((k) => k.identifier),
    ],
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
