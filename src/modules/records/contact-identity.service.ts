/**
 * Who is behind a channel identifier: finds the contact owning (entity, channel type, identifier) or
 * creates one with the group and lead the hierarchy needs (group > lead > contact), and reads the sellers
 * of a lead or group. Used by conversations (unknown senders) and form ingest. Callers publish
 * `contact.created` (records.events.ts) after their transaction commits.
 */
import type { Db } from '../../db/client.js';
import { normalizeChannelIdentifier, type ContactChannelType } from './channel-identifier.js';
import * as repo from './contact-identity.repository.js';
import type { ContactCreatedEvent, LeadCreatedEvent } from './records.events.js';

export type { ContactIdentity } from './contact-identity.repository.js';

export interface ResolvedContact extends repo.ContactIdentity {
  /** True when this call created the contact (and its group and lead). */
  created: boolean;
}

/**
 * Returns the contact of `identifier` in `entityId`, creating group, lead, contact and channel when none
 * exists. Safe under concurrency: the channel's unique key decides, inside a savepoint, so a losing
 * writer leaves nothing behind and reads the winner's contact. Throws when the identifier is invalid
 * for `type`.
 */
export async function findOrCreateContact(
  db: Db,
  entityId: number,
  input: { type: ContactChannelType; identifier: string; name: string | null; extraChannels?: { type: ContactChannelType; identifier: string }[] },
): Promise<ResolvedContact> {
  const identifier = normalizeChannelIdentifier(input.type, input.identifier);
  if (identifier === undefined) throw new Error(`Invalid ${input.type} identifier`);
  const existing = await repo.findContactByChannel(db, entityId, input.type, identifier);
  if (existing) return { ...existing, created: false };
  const name = input.name?.trim() || identifier;
  const phone = input.type === 'whatsapp' || input.type === 'phone' ? identifier : null;
  try {
    const created = await db.transaction(async (sp) => {
      const ids = await repo.insertContactWithChannel(sp, entityId, name, phone, input.type, identifier);
      if (!ids) throw new LostRace();
      for (const extra of input.extraChannels ?? []) {
        const normalized = normalizeChannelIdentifier(extra.type, extra.identifier);
        if (normalized !== undefined) await repo.insertChannelIfAbsent(sp, entityId, ids.contactId, extra.type, normalized);
      }
      return ids;
    });
    return { ...created, created: true };
  } catch (err) {
    if (!(err instanceof LostRace)) throw err;
    const winner = await repo.findContactByChannel(db, entityId, input.type, identifier);
    if (!winner) throw new Error('Contact channel vanished after a conflict', { cause: err });
    return { ...winner, created: false };
  }
}

class LostRace extends Error {}

/** Sellers of a contact's lead, then of its group (direct lead assignments first), without duplicates. */
export async function sellersOf(db: Db, entityId: number, ids: { leadId: number; groupId: number }): Promise<number[]> {
  const [leadSellers, groupSellers] = [await repo.leadSellerIds(db, entityId, ids.leadId), await repo.groupSellerIds(db, entityId, ids.groupId)];
  return [...new Set([...leadSellers, ...groupSellers])];
}

/** The `contact.created` and `lead.created` payloads for a contact created by the system. */
export function creationEvents(entityId: number, ids: repo.ContactIdentity, source: ContactCreatedEvent['source']): { contact: ContactCreatedEvent; lead: LeadCreatedEvent } {
  const occurredAt = new Date().toISOString();
  return {
    contact: { entityId, contactId: ids.contactId, leadId: ids.leadId, groupId: ids.groupId, createdByEmployeeId: null, source, occurredAt },
    lead: { entityId, leadId: ids.leadId, groupId: ids.groupId, createdByEmployeeId: null, occurredAt },
  };
}
