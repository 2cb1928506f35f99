/** Record factories: groups, leads, contacts and assignments written straight to the database. */
import type { Db } from '../../src/db/client.js';
import { insertGroup } from '../../src/modules/records/group.repository.js';
import { insertLead } from '../../src/modules/records/lead.repository.js';
import { insertContact, insertManualChannels } from '../../src/modules/records/contact.repository.js';
import { insertGroupAssignments, upsertLeadAssignment } from '../../src/modules/records/assignment.repository.js';
import type { ContactChannelType } from '../../src/modules/records/channel-identifier.js';

let n = 0;
const seq = () => ++n;

export async function makeGroup(db: Db, entityId: number, name = `Group ${seq()}`) {
  return insertGroup(db, entityId, { name });
}

export async function makeLead(db: Db, opts: { entityId: number; groupId?: number; name?: string; erpId?: string | null }) {
  const groupId = opts.groupId ?? (await makeGroup(db, opts.entityId)).id;
  return insertLead(db, opts.entityId, { groupId, name: opts.name ?? `Lead ${seq()}`, erpId: opts.erpId ?? null });
}

export async function makeContact(
  db: Db,
  opts: { entityId: number; leadId?: number; name?: string; channels?: { type: ContactChannelType; identifier: string }[] },
) {
  const lead = opts.leadId !== undefined ? { id: opts.leadId } : await makeLead(db, { entityId: opts.entityId });
  const { findLead } = await import('../../src/modules/records/lead.repository.js');
  const row = await findLead(db, opts.entityId, lead.id);
  const contact = await insertContact(db, opts.entityId, { groupId: row!.groupId, leadId: lead.id, name: opts.name ?? `Contact ${seq()}` });
  await insertManualChannels(
    db,
    opts.entityId,
    contact.id,
    (opts.channels ?? []).map((c) => ({ ...c, label: null })),
  );
  return contact;
}

export async function assignGroup(db: Db, entityId: number, employeeId: number, groupId: number) {
  return (await insertGroupAssignments(db, entityId, employeeId, [groupId]))[0];
}

export async function assignLead(db: Db, entityId: number, employeeId: number, leadId: number) {
  return (await upsertLeadAssignment(db, entityId, leadId, employeeId)).row;
}
