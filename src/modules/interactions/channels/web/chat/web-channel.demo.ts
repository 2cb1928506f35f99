/** Demo data of the website chat: the demo company's website (token `DEMO_WEBSITE_TOKEN`), shown at `/widget/demo`. Idempotent. */
import type { Db } from '../../../../../db/client.js';
import { insertAccountIfAbsent } from '../../../channel-accounts/index.js';
import { upsertSettings } from './web-channel.repository.js';

/** The demo website's public token (the demo page embeds it). */
export const DEMO_WEBSITE_TOKEN = 'wt_demo_company_website';

export async function seedWebChannelDemo(db: Db, entityId: number): Promise<{ accountId: number; websiteToken: string }> {
  const account = await insertAccountIfAbsent(db, entityId, {
    channelTypeCode: 'web',
    externalAccountId: DEMO_WEBSITE_TOKEN,
    displayName: 'Demo Company',
    phoneNumber: null,
  });
  const defaults = { prechatFields: { name: 'required', email: 'optional', phone: 'off' }, appearance: { color: '#0b7a75', position: 'right' } } as const;
  await upsertSettings(db, entityId, account.id, defaults, {
    ...defaults,
    greetingText: 'Hi! Ask us anything: an agent answers here.',
    businessHoursText: 'Mon–Fri 8:00–18:00',
    awayText: 'Outside those hours we answer the next working day.',
  });
  return { accountId: account.id, websiteToken: DEMO_WEBSITE_TOKEN };
}
