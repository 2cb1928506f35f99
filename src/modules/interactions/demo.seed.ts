/**
 * Demo data of the interactions module: the demo company's WhatsApp number and Messenger page; entity 1 owns the WhatsApp number of Meta's published examples
 * (`phone_number_id` 106540352242922), so those payloads land in its inbox out of the box; a default
 * queue holds the demo employees; the demo website's chat (`/widget/demo`); a few canned replies. Idempotent.
 */
import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { insertAccountIfAbsent } from './channel-accounts/index.js';
import { PLATFORM_CODES, routingQueue, routingQueueMember } from './model/index.js';
import { seedWebChannelDemo } from './channels/web/chat/index.js';
import { seedCannedRepliesDemo } from './canned-replies/index.js';

export const DEMO_WHATSAPP_PHONE_NUMBER_ID = '106540352242922';

// The catalogue's first code of each platform: WhatsApp's Cloud API and Messenger.
const [WHATSAPP_CLOUD_API] = PLATFORM_CODES.whatsapp;
const [MESSENGER] = PLATFORM_CODES.messenger;

export interface InteractionsDemo {
  channelAccountId: number;
  phoneNumberId: string;
}

export async function seedInteractionsDemo(db: Db, entityId: number, employeeIds: number[]): Promise<InteractionsDemo> {
  await insertAccountIfAbsent(db, entityId, {
    channelTypeCode: WHATSAPP_CLOUD_API,
    externalAccountId: '100000000000001',
    displayName: 'Demo Company WhatsApp',
    phoneNumber: '+50222220000',
  });
  await insertAccountIfAbsent(db, entityId, {
    channelTypeCode: MESSENGER,
    externalAccountId: 'page-demo-1',
    displayName: 'Demo Company Messenger',
    phoneNumber: null,
  });
  const account = await insertAccountIfAbsent(db, entityId, {
    channelTypeCode: WHATSAPP_CLOUD_API,
    externalAccountId: DEMO_WHATSAPP_PHONE_NUMBER_ID,
    displayName: 'Demo WhatsApp (+1 555 078 3881)',
    phoneNumber: '+15550783881',
  });
  await seedWebChannelDemo(db, entityId);
  const existing = await db
    .select({ id: routingQueue.id })
    .from(routingQueue)
    .where(sql`${routingQueue.entityId} = ${entityId} and ${routingQueue.isDefault}`);
  const queueId =
    existing[0]?.id ??
    (await db.insert(routingQueue).values({ entityId, name: 'Demo inbox', isDefault: true, defaultCapacity: 20 }).returning({ id: routingQueue.id }))[0]!.id;
  for (const [position, employeeId] of employeeIds.entries()) {
    await db.insert(routingQueueMember).values({ entityId, queueId, employeeId, position }).onConflictDoNothing();
  }
  await seedCannedRepliesDemo(db, entityId, queueId, employeeIds[0]);
  return { channelAccountId: account.id, phoneNumberId: DEMO_WHATSAPP_PHONE_NUMBER_ID };
}
