/**
 * Contacts and their channels (SPEC "CRM data used by the shared client layer"). The channels contract:
 * a contact's `channels` lists every way to reach it; those typed by users are `is_manual` and are
 * replaced as a set by `manual_channels` on PATCH; those learned from conversations are kept. An
 * identifier is unique per entity and type, so a channel held by another contact is a 409.
 */
import { transaction } from '../../platform/transactions/transaction.js';
import { toPage } from '../../platform/http/pagination.js';
import type { Db } from '../../db/client.js';
import type { Principal } from '../../platform/auth/authenticator.js';
import type { EventBus } from '../../platform/events/bus.js';
import { conflict, notFound, validationFailed, type FieldError } from '../../platform/errors.js';
import type { Page } from '../../platform/http/pagination.js';
import { normalizeChannelIdentifier, type ContactChannelType } from './channel-identifier.js';
import {
  countContacts,
  deleteManualChannels,
  findChannelHolders,
  findContactRow,
  insertContact,
  insertManualChannels,
  selectContactViews,
  updateContact,
  deleteContact,
  type ContactView,
} from './contact.repository.js';
import type { ChannelInput, ContactListQuery, ContactResponse, CreateContactBody, UpdateContactBody } from './contact.schemas.js';
import { findLead } from './lead.repository.js';
import { isUniqueViolation } from '../../db/db-errors.js';
import { actorOf, type AuditTrail } from '../audit/index.js';
import { refusingReferenced } from './record-deletion.js';

const iso = (v: Date | string) => (v instanceof Date ? v : new Date(v)).toISOString();

function toContactResponse(v: ContactView): ContactResponse {
  return {
    id: v.id,
    group_id: v.group_id,
    lead_id: v.lead_id,
    name: v.name,
    channels: v.channels.map((c) => ({ id: c.id, type: c.type, identifier: c.identifier, label: c.label, is_manual: c.is_manual })),
    hasCustomFieldValues: v.custom_field_values_count > 0,
    customFieldValuesCount: v.custom_field_values_count,
    label_ids: v.label_ids,
    created_at: iso(v.created_at),
    updated_at: iso(v.updated_at),
  };
}

interface NormalizedChannel {
  type: ContactChannelType;
  identifier: string;
  label: string | null;
}

/** Normalizes channel inputs (400 naming each invalid one) and drops duplicates within the request. */
function normalizeChannels(inputs: ChannelInput[], path: string): NormalizedChannel[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  const out: NormalizedChannel[] = [];
  inputs.forEach((input, i) => {
    const identifier = normalizeChannelIdentifier(input.type, input.identifier);
    if (!identifier) {
      errors.push({ field: `${path}/${i}/identifier`, message: `is not a valid ${input.type} identifier` });
      return;
    }
    const key = `${input.type}:${identifier}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ type: input.type, identifier, label: input.label ?? null });
  });
  if (errors.length > 0) throw validationFailed(errors);
  return out;
}

export function createContactService(deps: { db: Db; events: EventBus; audit: AuditTrail }) {
  const { db, events } = deps;

  async function view(entityId: number, id: number): Promise<ContactResponse> {
    const rows = await selectContactViews(db, entityId, { id, limit: 1, offset: 0 });
    if (!rows[0]) throw notFound('contact', id);
    return toContactResponse(rows[0]);
  }

  async function assertChannelsFree(entityId: number, channels: NormalizedChannel[], contactId?: number): Promise<void> {
    const holders = await findChannelHolders(db, entityId, channels);
    const taken = holders.find((h) => h.contactId !== contactId && channels.some((c) => c.type === h.type && c.identifier === h.identifier));
    if (taken) throw channelTaken(taken);
  }

  function channelTaken(h: { type: string; identifier: string; contactId?: number }) {
    return conflict('channel_taken', `The ${h.type} ${h.identifier} already belongs to another contact`, {
      ...(h.contactId !== undefined ? { contact_id: h.contactId } : {}),
    });
  }

  async function leadOf(entityId: number, leadId: number) {
    const row = await findLead(db, entityId, leadId);
    if (!row) throw validationFailed([{ field: '/body/lead_id', message: `lead ${leadId} not found` }]);
    return row;
  }

  return {
    /** One SQL query for a non-empty page (see `selectContactViews`). */
    async list(caller: Principal, q: ContactListQuery): Promise<Page<ContactResponse>> {
      const filter = { groupId: q.group_id, leadId: q.lead_id, labelAny: q.label, labelAll: q.label_all, limit: q.limit, offset: q.offset };
      const rows = await selectContactViews(db, caller.entityId, filter);
      const total = rows[0]?.total ?? (q.offset > 0 ? await countContacts(db, caller.entityId, filter) : 0);
      return toPage(q, rows, total, toContactResponse);
    },

    /** Throws 404 `not_found` for an unknown id or another entity's contact. */
    get: (caller: Principal, id: number) => view(caller.entityId, id),

    /** 400 for an unknown lead or invalid channel; 409 `channel_taken`. Publishes `contact.created`. */
    async create(caller: Principal, body: CreateContactBody): Promise<ContactResponse> {
      const channels = normalizeChannels(body.channels ?? [], '/body/channels');
      const parent = await leadOf(caller.entityId, body.lead_id);
      await assertChannelsFree(caller.entityId, channels);
      let row;
      try {
        row = await transaction(
          db,
          async ({ tx, events }) => {
            const created = await insertContact(tx, caller.entityId, { groupId: parent.groupId, leadId: parent.id, name: body.name.trim() });
            await insertManualChannels(tx, caller.entityId, created.id, channels);
            events.domainEvent('contact.created', {
              entityId: caller.entityId,
              contactId: created.id,
              leadId: created.leadId,
              groupId: created.groupId,
              createdByEmployeeId: caller.employeeId,
              source: 'api',
              occurredAt: created.createdAt.toISOString(),
            });
            return created;
          },
          { events },
        );
      } catch (err) {
        if (isUniqueViolation(err)) throw channelTaken({ type: 'channel', identifier: 'identifier' });
        throw err;
      }
      return view(caller.entityId, row.id);
    },

    /** Name, lead (moves the contact with its lead's group) and the manual channel set. */
    async update(caller: Principal, id: number, body: UpdateContactBody): Promise<ContactResponse> {
      const channels = body.manual_channels ? normalizeChannels(body.manual_channels, '/body/manual_channels') : undefined;
      const existing = await findContactRow(db, caller.entityId, id);
      if (!existing) throw notFound('contact', id);
      const parent = body.lead_id !== undefined ? await leadOf(caller.entityId, body.lead_id) : undefined;
      if (channels) await assertChannelsFree(caller.entityId, channels, id);
      try {
        await transaction(db, async ({ tx }) => {
          await updateContact(tx, caller.entityId, id, {
            ...(body.name !== undefined ? { name: body.name.trim() } : {}),
            ...(parent ? { leadId: parent.id, groupId: parent.groupId } : {}),
          });
          if (channels) {
            await deleteManualChannels(tx, caller.entityId, id);
            // A channel the contact already has from a conversation stays learned; do not duplicate it.
            const learned = await findChannelHolders(tx, caller.entityId, channels);
            const fresh = channels.filter((c) => !learned.some((h) => h.type === c.type && h.identifier === c.identifier));
            await insertManualChannels(tx, caller.entityId, id, fresh);
          }
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw channelTaken({ type: 'channel', identifier: 'identifier' });
        throw err;
      }
      return view(caller.entityId, id);
    },

    /**
     * Deletes the contact with its channels and labels (record-deletion.ts): one audit entry naming its id, lead
     * and group, never its name. Errors: 404 (another entity's too), 409 `record_in_use`.
     */
    async remove(caller: Principal, id: number): Promise<void> {
      await refusingReferenced('contact', id, () =>
        transaction(db, async ({ tx }) => {
          const gone = await deleteContact(tx, caller.entityId, id);
          if (!gone) throw notFound('contact', id);
          await deps.audit.record(tx, {
            entityId: caller.entityId,
            actor: actorOf(caller),
            action: 'contact.delete',
            target: { type: 'contact', id },
            details: { lead_id: gone.leadId, group_id: gone.groupId },
          });
        }),
      );
    },
  };
}
export type ContactService = ReturnType<typeof createContactService>;
