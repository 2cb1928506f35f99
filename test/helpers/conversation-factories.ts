/** Factories for the conversation tests: channel accounts and a contact with one channel, written straight to the database. */
import { randomBytes } from 'node:crypto';
import type { Db } from '../../src/db/client.js';
import { entityChannelAccount } from '../../src/modules/interactions/model/entity-channel-account.table.js';
import { crmGroup } from '../../src/modules/records/group.table.js';
import { lead } from '../../src/modules/records/lead.table.js';
import { contact, contactChannel } from '../../src/modules/records/contact.table.js';
import { leadAssignment } from '../../src/modules/records/assignment.table.js';

const unique = () => randomBytes(4).toString('hex');

export async function makeChannelAccount(
  db: Db,
  opts: { entityId: number; externalAccountId?: string; channelTypeCode?: 'chatapp_api' | 'chatapp_business' | 'social_messenger' | 'social_dm' },
) {
  const [row] = await db
    .insert(entityChannelAccount)
    .values({
      entityId: opts.entityId,
      channelTypeCode: opts.channelTypeCode ?? 'chatapp_api',
      externalAccountId: opts.externalAccountId ?? `acc-${unique()}`,
      displayName: 'Test account',
    })
    .returning();
  return row!;
}

/** A group, a lead and a contact with one channel (e.g. a WhatsApp number in E.164). */
export async function makeContact(
  db: Db,
  opts: { entityId: number; channel?: { type: 'whatsapp' | 'messenger' | 'instagram' | 'phone' | 'email'; identifier: string } },
) {
  const [group] = await db
    .insert(crmGroup)
    .values({ entityId: opts.entityId, name: `Group ${unique()}` })
    .returning();
  const [l] = await db
    .insert(lead)
    .values({ entityId: opts.entityId, groupId: group!.id, name: `Lead ${unique()}` })
    .returning();
  const [c] = await db
    .insert(contact)
    .values({ entityId: opts.entityId, groupId: group!.id, leadId: l!.id, name: `Contact ${unique()}` })
    .returning();
  if (opts.channel)
    await db.insert(contactChannel).values({ entityId: opts.entityId, contactId: c!.id, type: opts.channel.type, identifier: opts.channel.identifier });
  return { groupId: group!.id, leadId: l!.id, contactId: c!.id };
}

export async function assignLeadSeller(db: Db, entityId: number, leadId: number, employeeId: number) {
  await db.insert(leadAssignment).values({ entityId, leadId, employeeId });
}
