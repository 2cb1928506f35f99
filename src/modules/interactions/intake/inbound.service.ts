/**
 * Inbound intake of one claimed batch inside the worker's transaction (SPEC "Inbound webhook processing
 * order", steps 5 to 7). The claim resolved each event's receiving account and existing conversation;
 * events of an account no entity has yet are resolved here ONCE for the batch, through the communications
 * config (registering the account), or found unroutable. Then every message takes the same path whatever
 * way its account became known (inbound-message.service.ts), and statuses apply one at a time
 * (inbound-status.service.ts). Returns each event's outcome and what it publishes after commit.
 */
import type { Db } from '../../../db/client.js';
import type { ConversationChange } from '../activity/index.js';
import type { CanonicalEvent } from '../model/index.js';
import type { ClaimedEvent } from './intake.repository.js';
import { registerAccount, type ChannelAccountRef } from '../channel-accounts/index.js';
import { findEntityByCommunicationsConfig } from '../communications/index.js';
import { receiveMessages, type InboundMessage } from '../projection/index.js';
import { applyStatusEvent } from '../projection/index.js';
import type { SlaClocks } from '../service-levels/index.js';

export type InboundOutcome = { id: number; state: 'processed'; entityId: number } | { id: number; state: 'unroutable'; entityId: null };

/** Applies the claimed events; one outcome per event, in order. Throws (the caller rolls back) when an event cannot be applied. */
export async function applyInboundEvents(change: ConversationChange, claimed: ClaimedEvent[], sla: SlaClocks): Promise<InboundOutcome[]> {
  const db = change.tx;
  const accounts = await resolveUnknownAccounts(db, claimed);
  const outcomes: InboundOutcome[] = [];
  const messages: InboundMessage[] = [];
  const statuses: { account: ChannelAccountRef; event: CanonicalEvent }[] = [];
  for (const [i, c] of claimed.entries()) {
    const account = accounts[i];
    if (!account) {
      outcomes.push({ id: c.id, state: 'unroutable', entityId: null });
      continue;
    }
    outcomes.push({ id: c.id, state: 'processed', entityId: account.entityId });
    // A just-registered account has no conversation yet: its chat is opened like any new chat.
    if (c.event.kind === 'message') messages.push({ event: c.event, account, conversationId: c.account ? c.conversationId : null });
    else statuses.push({ account, event: c.event });
  }
  await receiveMessages(change, messages, sla);
  for (const s of statuses) if (s.event.kind === 'status') await applyStatusEvent(change, s.account, s.event);
  return outcomes;
}

/**
 * Each claimed event's account: the one the claim found, else the account registered for the entity whose
 * communications config the event names (once per platform account id in the batch), else undefined.
 */
async function resolveUnknownAccounts(db: Db, claimed: ClaimedEvent[]): Promise<(ChannelAccountRef | undefined)[]> {
  const registered = new Map<string, ChannelAccountRef | undefined>();
  const result: (ChannelAccountRef | undefined)[] = [];
  for (const { event, account } of claimed) {
    if (account) {
      result.push(account);
      continue;
    }
    const key = `${event.platform}:${event.account_id}:${event.external_app_id ?? ''}:${event.communications_entity_id ?? ''}`;
    if (!registered.has(key)) registered.set(key, await registerFromConfig(db, event));
    result.push(registered.get(key));
  }
  return result;
}

async function registerFromConfig(db: Db, event: CanonicalEvent): Promise<ChannelAccountRef | undefined> {
  const entityId = await findEntityByCommunicationsConfig(db, event.external_app_id ?? null, event.communications_entity_id ?? null);
  if (entityId === undefined) return undefined;
  return registerAccount(db, entityId, event.platform, event.account_id);
}
