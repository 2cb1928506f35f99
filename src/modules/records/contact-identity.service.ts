/**
 * Who is behind a channel identifier: finds the contact owning (entity, channel type, identifier) or
 * creates one with the group and lead the hierarchy needs (group > lead > contact), and reads the sellers
 * of a lead or group. Used by conversations (unknown senders) and form ingest. A contact created here
 * publishes `lead.created` and `contact.created` (records.events.ts) through the caller's unit of work,
 * opened with the event bus (`transaction(db, work, { events })`, platform/transactions).
 */
import type { Db } from '../../db/client.js';
import { savepoint, type PublishingUnitOfWork } from '../../platform/transactions/transaction.js';
import { AppError } from '../../platform/errors.js';
import { normalizeChannelIdentifier, type ContactChannelType } from './channel-identifier.js';
import * as repo from './contact-identity.repository.js';
import type { ContactCreatedEvent } from './records.events.js';

export interface ResolvedContact extends repo.ContactIdentity {
  /** True when this call created the contact (and its group and lead). */
  created: boolean;
}

/**
 * Returns the contact of `identifier` in `entityId`, creating group, lead, contact and channel when none
 * exists. Safe under concurrency: the channel's unique key decides, inside a savepoint, so a losing
 * writer leaves nothing behind and reads the winner's contact. A created contact's events name `source`.
 * Throws when the identifier is invalid for `type`.
 */
export async function findOrCreateContact(
  unit: PublishingUnitOfWork,
  entityId: number,
  input: IdentityInput,
  source: ContactCreatedEvent['source'],
): Promise<ResolvedContact> {
  const resolved = await resolveContact(unit.tx, entityId, input);
  if (resolved.created) publishCreation(unit, entityId, resolved, source);
  return resolved;
}

type IdentityInput = { type: ContactChannelType; identifier: string; name: string | null; extraChannels?: { type: ContactChannelType; identifier: string }[] };

async function resolveContact(db: Db, entityId: number, input: IdentityInput): Promise<ResolvedContact> {
  const identifier = normalizeChannelIdentifier(input.type, input.identifier);
  if (identifier === undefined) throw invalidIdentifier(input.type, input.identifier);
  const existing = await repo.findContactByChannel(db, entityId, input.type, identifier);
  if (existing) return { ...existing, created: false };
  const name = input.name?.trim() || identifier;
  const phone = phoneOf(input.type, identifier);
  try {
    const created = await savepoint(db, async (sp) => {
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

/**
 * 422 `invalid_channel_identifier`: `identifier` can never name a contact on `type` (a WhatsApp sender id
 * that is not a phone number's digits). A queue or the webhook intake dead-letters it at once with this reason.
 */
function invalidIdentifier(type: ContactChannelType, identifier: string): AppError {
  const shown = JSON.stringify(identifier.length > 64 ? `${identifier.slice(0, 64)}…` : identifier);
  const expected = type === 'whatsapp' || type === 'phone' ? ': the sender must be a phone number in digits (international format)' : '';
  return new AppError(422, 'invalid_channel_identifier', 'Invalid channel identifier', `Invalid ${type} identifier ${shown}${expected}`, {
    channel_type: type,
  });
}

/** The lead's phone for a new contact reached on `type`: the identifier itself for phone channels. */
const phoneOf = (type: ContactChannelType, identifier: string): string | null => (type === 'whatsapp' || type === 'phone' ? identifier : null);

/** One sender to resolve with `findOrCreateContacts`. */
export interface ContactInput {
  entityId: number;
  type: ContactChannelType;
  identifier: string;
  name: string | null;
}

/**
 * `findOrCreateContact` for many identifiers at once, in a constant number of statements (one lookup, one
 * insert inside a savepoint): for the inbound webhook's batches. Returns a result per index of `inputs`;
 * inputs naming one channel share one contact, created once. When another writer created one of the
 * channels meanwhile, the savepoint is rolled back and every input is resolved one by one instead.
 * Created contacts' events name `source`. Throws when an identifier is invalid for its type.
 */
export async function findOrCreateContacts(
  unit: PublishingUnitOfWork,
  inputs: ContactInput[],
  source: ContactCreatedEvent['source'],
): Promise<ResolvedContact[]> {
  const db = unit.tx;
  const keys = inputs.map((input) => {
    const identifier = normalizeChannelIdentifier(input.type, input.identifier);
    if (identifier === undefined) throw invalidIdentifier(input.type, input.identifier);
    return { entityId: input.entityId, type: input.type, identifier, name: input.name?.trim() || identifier };
  });
  const keyOf = (k: repo.ChannelKey) => `${k.entityId}:${k.type}:${k.identifier}`;
  const distinct = [...new Map(keys.map((k) => [keyOf(k), k])).values()];
  const found = await repo.findContactsByChannels(db, distinct);
  const missing = distinct.filter((_, i) => !found.has(i));
  const byKey = new Map<string, ResolvedContact>();
  distinct.forEach((k, i) => {
    const hit = found.get(i);
    if (hit) byKey.set(keyOf(k), { ...hit, created: false });
  });
  if (missing.length > 0) {
    try {
      const created = await savepoint(db, async (sp) => {
        const ids = await repo.insertContactsWithChannels(
          sp,
          missing.map((k) => ({ ...k, phone: phoneOf(k.type, k.identifier) })),
        );
        if (!ids) throw new LostRace();
        return ids;
      });
      missing.forEach((k, i) => byKey.set(keyOf(k), { ...created[i]!, created: true }));
    } catch (err) {
      if (!(err instanceof LostRace)) throw err;
      for (const k of missing) byKey.set(keyOf(k), await resolveContact(db, k.entityId, { type: k.type, identifier: k.identifier, name: k.name }));
    }
  }
  // A shared channel's contact is reported created to its first input only, so creation events go out once.
  const reported = new Set<string>();
  return keys.map((k) => {
    const r = byKey.get(keyOf(k))!;
    const first = !reported.has(keyOf(k));
    reported.add(keyOf(k));
    const created = r.created && first;
    if (created) publishCreation(unit, k.entityId, r, source);
    return { ...r, created };
  });
}

/** Sellers of a contact's lead, then of its group (direct lead assignments first), without duplicates. */
export async function sellersOf(db: Db, entityId: number, ids: { leadId: number; groupId: number }): Promise<number[]> {
  const [leadSellers, groupSellers] = [await repo.leadSellerIds(db, entityId, ids.leadId), await repo.groupSellerIds(db, entityId, ids.groupId)];
  return [...new Set([...leadSellers, ...groupSellers])];
}

/** `lead.created`, then `contact.created`, for a contact the system created, through `unit`. */
function publishCreation(unit: PublishingUnitOfWork, entityId: number, ids: repo.ContactIdentity, source: ContactCreatedEvent['source']): void {
  const occurredAt = new Date().toISOString();
  const { events } = unit;
  events.domainEvent('lead.created', { entityId, leadId: ids.leadId, groupId: ids.groupId, createdByEmployeeId: null, occurredAt });
  events.domainEvent('contact.created', {
    entityId,
    contactId: ids.contactId,
    leadId: ids.leadId,
    groupId: ids.groupId,
    createdByEmployeeId: null,
    source,
    occurredAt,
  });
}
