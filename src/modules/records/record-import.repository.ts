/**
 * The records side of imports (issue 52): look-ups by a batch of values and writes of a batch of leads and
 * contacts, each one statement per batch (a batch of 500 rows is a handful of round trips, whatever its size).
 */
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import type { ContactChannelType } from './channel-identifier.js';
import { crmGroup } from './group.table.js';
import { lead } from './lead.table.js';
import { contact, contactChannel } from './contact.table.js';
import { refreshLeadSellers } from './lead-seller.repository.js';
import type { LeadValues } from './lead.repository.js';

/** The lead columns an import matches on. */
export type LeadMatchColumn = 'erpId' | 'email' | 'phone' | 'taxId';

/** The ids among `ids` that are groups of the entity. */
export async function groupIdsOf(db: Db, entityId: number, ids: number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .select({ id: crmGroup.id })
    .from(crmGroup)
    .where(and(eq(crmGroup.entityId, entityId), inArray(crmGroup.id, ids)));
  return new Set(rows.map((r) => r.id));
}

/** Leads of the entity whose `column` is among `values`: value → the oldest such lead's id and group. */
export async function leadsBy(
  db: Db,
  entityId: number,
  column: LeadMatchColumn | 'id',
  values: (string | number)[],
): Promise<Map<string, { id: number; groupId: number }>> {
  const out = new Map<string, { id: number; groupId: number }>();
  if (values.length === 0) return out;
  const col = lead[column];
  const rows = await db
    .select({ id: lead.id, groupId: lead.groupId, value: col })
    .from(lead)
    .where(and(eq(lead.entityId, entityId), inArray(col, values as never[])))
    .orderBy(asc(lead.id));
  for (const r of rows) {
    const key = String(r.value);
    if (!out.has(key)) out.set(key, { id: r.id, groupId: r.groupId });
  }
  return out;
}

/** Inserts leads in one statement, then their stored sellers; returns their ids and creation times in order. */
export async function insertLeads(
  db: Db,
  entityId: number,
  items: (LeadValues & { groupId: number; name: string })[],
): Promise<{ id: number; groupId: number; createdAt: Date }[]> {
  if (items.length === 0) return [];
  const rows = await db
    .insert(lead)
    .values(items.map((v) => ({ ...v, entityId })))
    .returning({ id: lead.id, groupId: lead.groupId, createdAt: lead.createdAt });
  await refreshLeadSellers(db, entityId, { leadIds: rows.map((r) => r.id) });
  return rows;
}

/** Sets each lead's given columns (the group is not changed by an import). */
export async function updateLeadsValues(db: Db, entityId: number, items: { id: number; values: Omit<LeadValues, 'groupId'> }[]): Promise<void> {
  for (const item of items) {
    if (Object.keys(item.values).length === 0) continue;
    await db
      .update(lead)
      .set({ ...item.values, updatedAt: sql`now()` })
      .where(and(eq(lead.entityId, entityId), eq(lead.id, item.id)));
  }
}

/** Holders of channel identifiers in the entity: `type:identifier` → contact id. */
export async function channelHoldersOf(db: Db, entityId: number, keys: { type: ContactChannelType; identifier: string }[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (keys.length === 0) return out;
  const rows = await db
    .select({ contactId: contactChannel.contactId, type: contactChannel.type, identifier: contactChannel.identifier })
    .from(contactChannel)
    .where(
      and(
        eq(contactChannel.entityId, entityId),
        inArray(
          contactChannel.identifier,
          keys.map((k) => k.identifier),
        ),
      ),
    );
  for (const r of rows) out.set(`${r.type}:${r.identifier}`, r.contactId);
  return out;
}

export interface ContactInsert {
  leadId: number;
  groupId: number;
  name: string;
  channels: { type: ContactChannelType; identifier: string }[];
}

/** Inserts contacts and their (manual) channels, two statements; returns ids and creation times in order. */
export async function insertContacts(db: Db, entityId: number, items: ContactInsert[]): Promise<{ id: number; createdAt: Date }[]> {
  if (items.length === 0) return [];
  const rows = await db
    .insert(contact)
    .values(items.map((c) => ({ entityId, leadId: c.leadId, groupId: c.groupId, name: c.name })))
    .returning({ id: contact.id, createdAt: contact.createdAt });
  const channels = items.flatMap((c, i) =>
    c.channels.map((ch) => ({ entityId, contactId: rows[i]!.id, type: ch.type, identifier: ch.identifier, isManual: true })),
  );
  if (channels.length > 0) await db.insert(contactChannel).values(channels);
  return rows;
}

/** Renames contacts and adds the channels they do not have yet (manual); channels are never taken from another contact. */
export async function updateContactsValues(
  db: Db,
  entityId: number,
  items: { id: number; name?: string; channels: { type: ContactChannelType; identifier: string }[] }[],
): Promise<void> {
  for (const item of items) {
    if (item.name !== undefined) {
      await db
        .update(contact)
        .set({ name: item.name, updatedAt: sql`now()` })
        .where(and(eq(contact.entityId, entityId), eq(contact.id, item.id)));
    }
  }
  const channels = items.flatMap((c) => c.channels.map((ch) => ({ entityId, contactId: c.id, type: ch.type, identifier: ch.identifier, isManual: true })));
  if (channels.length > 0) await db.insert(contactChannel).values(channels).onConflictDoNothing();
}
