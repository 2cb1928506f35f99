/**
 * Who a quote or order is for and who sells it, checked against the records and identity modules:
 * the lead must be the entity's, the contact the lead's, the seller an active member — the caller unless
 * they hold `catalog.seller_change` (SPEC: change the seller in the catalog).
 */
import type { Principal } from '../../platform/auth/authenticator.js';
import { forbidden, validationFailed } from '../../platform/errors.js';

export interface PartyLookups {
  lead(entityId: number, leadId: number): Promise<{ leadId: number; groupId: number; erpId: string | null; name: string } | undefined>;
  contact(entityId: number, contactId: number): Promise<{ contactId: number; leadId: number; groupId: number } | undefined>;
  assertActiveMember(entityId: number, employeeId: number, field: string): Promise<void>;
}

const SELLER_CHANGE = 'catalog.seller_change';

/** The seller of a document the caller writes: 403 `seller_change_forbidden` for another seller without the code. */
export async function sellerFor(p: Principal, requested: number | undefined, lookups: PartyLookups): Promise<number> {
  if (requested === undefined || requested === p.employeeId) return p.employeeId;
  if (!p.permissions.has(SELLER_CHANGE))
    throw forbidden('seller_change_forbidden', `Quoting or selling for another seller needs ${SELLER_CHANGE}`, { permission: SELLER_CHANGE });
  await lookups.assertActiveMember(p.entityId, requested, '/body/seller_employee_id');
  return requested;
}

/** The lead's group, and the contact checked to belong to the lead; 400 naming the field otherwise. */
export async function partiesOf(
  entityId: number,
  leadId: number,
  contactId: number | null | undefined,
  lookups: PartyLookups,
): Promise<{ groupId: number; contactId: number | null }> {
  const lead = await lookups.lead(entityId, leadId);
  if (!lead) throw validationFailed([{ field: '/body/lead_id', message: `lead ${leadId} not found` }]);
  if (contactId == null) return { groupId: lead.groupId, contactId: null };
  const contact = await lookups.contact(entityId, contactId);
  if (!contact || contact.leadId !== leadId)
    throw validationFailed([{ field: '/body/contact_id', message: `contact ${contactId} is not a contact of lead ${leadId}` }]);
  return { groupId: lead.groupId, contactId };
}
