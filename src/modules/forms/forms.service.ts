/**
 * Web form ingest (SPEC "Webhooks": creates contacts and associates them to the entity). The entity is
 * the one owning `form_key`; the contact is found by e-mail or phone (normalized), or created with its
 * group and lead; a submission id already seen returns the first result unchanged.
 */
import { transaction } from '../../platform/transactions/transaction.js';
import type { Db } from '../../db/client.js';
import type { EventBus } from '../../platform/events/bus.js';
import { unauthorized, validationFailed } from '../../platform/errors.js';
import { findOrCreateContact, normalizeChannelIdentifier, type ContactChannelType } from '../records/index.js';
import { findFormKey, insertSubmission, isSubmissionSeen } from './forms.repository.js';

export interface IngestInput {
  form_key: string;
  submission_id: string;
  name: string;
  email?: string | undefined;
  phone?: string | undefined;
}

export interface IngestResult {
  entity_id: number;
  contact_id: number;
  lead_id: number;
  group_id: number;
  created: boolean;
  duplicate: boolean;
}

export function createFormsService(deps: { db: Db; events: EventBus }) {
  return {
    /** Throws 401 `invalid_form_key`, 400 `validation_failed` (no valid e-mail or phone). */
    async ingest(input: IngestInput): Promise<IngestResult> {
      const key = await findFormKey(deps.db, input.form_key);
      if (!key) throw unauthorized('invalid_form_key', 'The form key is not known');
      const channels: { type: ContactChannelType; identifier: string }[] = [];
      const errors = [];
      if (input.email !== undefined) {
        const email = normalizeChannelIdentifier('email', input.email);
        if (email === undefined) errors.push({ field: '/body/email', message: 'must be an e-mail address' });
        else channels.push({ type: 'email', identifier: email });
      }
      if (input.phone !== undefined) {
        const phone = normalizeChannelIdentifier('phone', input.phone);
        if (phone === undefined) errors.push({ field: '/body/phone', message: 'must be a phone number' });
        else channels.push({ type: 'phone', identifier: phone });
      }
      if (errors.length > 0) throw validationFailed(errors);
      if (channels.length === 0) throw validationFailed([{ field: '/body', message: 'email or phone is required' }]);
      const entityId = key.entityId;
      const outcome = await transaction(
        deps.db,
        async (unit) => {
          const { tx } = unit;
          if (await isSubmissionSeen(tx, entityId, input.submission_id)) {
            const again = await findOrCreateContact(unit, entityId, { ...channels[0]!, name: input.name }, 'form');
            return { ids: again, created: false, duplicate: true };
          }
          const resolved = await findOrCreateContact(unit, entityId, { ...channels[0]!, name: input.name, extraChannels: channels.slice(1) }, 'form');
          const inserted = await insertSubmission(tx, { entityId, formKeyId: key.id, submissionId: input.submission_id, contactId: resolved.contactId });
          return { ids: resolved, created: resolved.created, duplicate: !inserted };
        },
        { events: deps.events },
      );
      return {
        entity_id: entityId,
        contact_id: outcome.ids.contactId,
        lead_id: outcome.ids.leadId,
        group_id: outcome.ids.groupId,
        created: outcome.created,
        duplicate: outcome.duplicate,
      };
    },
  };
}
export type FormsService = ReturnType<typeof createFormsService>;
