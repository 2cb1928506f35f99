import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { runShapedIn } from '../../db/statement.js';
import { CONTACT_VIEWS } from './contact.sql.js';
import { recordLabelled } from './label-filter.sql.js';
import type { PageRequest } from '../../platform/http/pagination.js';
import type { ContactChannelType } from './channel-identifier.js';
import { contact, contactChannel } from './contact.table.js';

interface ContactChannelRow {
  id: number;
  type: ContactChannelType;
  identifier: string;
  label: string | null;
  is_manual: boolean;
}

/** A contact with its channels and custom-field value count, as read by the one-query list. */
export interface ContactView {
  id: number;
  group_id: number;
  lead_id: number;
  name: string;
  channels: ContactChannelRow[];
  custom_field_values_count: number;
  label_ids: number[];
  created_at: Date | string;
  updated_at: Date | string;
  total: number;
}

/** An `integer[]` value as text (ids from a validated request), null when absent. */
const intArray = (ids: readonly number[] | undefined) => (ids === undefined ? null : `{${ids.join(',')}}`);

export interface ContactFilter extends PageRequest {
  groupId?: number | undefined;
  leadId?: number | undefined;
  id?: number | undefined;
  /** Any of these labels. */
  labelAny?: readonly number[] | undefined;
  /** All of these labels. */
  labelAll?: readonly number[] | undefined;
}

/**
 * Contacts with channels and value counts in ONE statement (SPEC: `GET /contacts?group_id=` is the
 * cheapest read): channels are aggregated per row, the count comes from the window `count(*) over ()`.
 */
export async function selectContactViews(db: Db, entityId: number, f: ContactFilter): Promise<ContactView[]> {
  const shape = {
    group: f.groupId !== undefined,
    lead: f.leadId !== undefined,
    id: f.id !== undefined,
    labels: f.labelAny !== undefined || f.labelAll !== undefined,
  };
  return runShapedIn<ContactView, typeof shape>(db, CONTACT_VIEWS, shape, {
    entityId,
    groupId: f.groupId,
    leadId: f.leadId,
    id: f.id,
    labelAny: f.labelAny ?? null,
    labelAll: f.labelAll ?? null,
    limit: f.limit,
    offset: f.offset,
  });
}

/** Counts matching contacts; only needed when a page past the end comes back empty. */
export async function countContacts(db: Db, entityId: number, f: ContactFilter): Promise<number> {
  const rows = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(contact)
    .where(
      and(
        eq(contact.entityId, entityId),
        f.groupId !== undefined ? eq(contact.groupId, f.groupId) : undefined,
        f.leadId !== undefined ? eq(contact.leadId, f.leadId) : undefined,
        f.labelAny !== undefined || f.labelAll !== undefined
          ? recordLabelled('contact', sql`${contact.id}`, intArray(f.labelAny), intArray(f.labelAll))
          : undefined,
      ),
    );
  return rows[0]?.n ?? 0;
}

export async function findContactRow(db: Db, entityId: number, id: number) {
  const rows = await db
    .select()
    .from(contact)
    .where(and(eq(contact.entityId, entityId), eq(contact.id, id)));
  return rows[0];
}

export async function insertContact(db: Db, entityId: number, values: { groupId: number; leadId: number; name: string }) {
  const rows = await db
    .insert(contact)
    .values({ ...values, entityId })
    .returning();
  return rows[0]!;
}

export async function updateContact(db: Db, entityId: number, id: number, values: { groupId?: number; leadId?: number; name?: string }) {
  await db
    .update(contact)
    .set({ ...values, updatedAt: sql`now()` })
    .where(and(eq(contact.entityId, entityId), eq(contact.id, id)));
}

/** The holders of identifiers among `channels` in the entity (to answer 409 before writing). */
export async function findChannelHolders(db: Db, entityId: number, channels: { type: ContactChannelType; identifier: string }[]) {
  if (channels.length === 0) return [];
  return db
    .select({ contactId: contactChannel.contactId, type: contactChannel.type, identifier: contactChannel.identifier, isManual: contactChannel.isManual })
    .from(contactChannel)
    .where(
      and(
        eq(contactChannel.entityId, entityId),
        inArray(
          contactChannel.identifier,
          channels.map((c) => c.identifier),
        ),
      ),
    );
}

export async function deleteManualChannels(db: Db, entityId: number, contactId: number): Promise<void> {
  await db.delete(contactChannel).where(and(eq(contactChannel.entityId, entityId), eq(contactChannel.contactId, contactId), eq(contactChannel.isManual, true)));
}

export async function insertManualChannels(
  db: Db,
  entityId: number,
  contactId: number,
  channels: { type: ContactChannelType; identifier: string; label: string | null }[],
): Promise<void> {
  if (channels.length === 0) return;
  await db.insert(contactChannel).values(channels.map((c) => ({ ...c, entityId, contactId, isManual: true })));
}

/**
 * Deletes the contact (its channels and labels go with it, `on delete cascade`); false when the entity has no such
 * contact. A conversation, quote, order or form key still naming it makes the database refuse (foreign key).
 */
export async function deleteContact(db: Db, entityId: number, id: number): Promise<{ leadId: number; groupId: number } | undefined> {
  const [row] = await db
    .delete(contact)
    .where(and(eq(contact.entityId, entityId), eq(contact.id, id)))
    .returning({ leadId: contact.leadId, groupId: contact.groupId });
  return row;
}
