/**
 * Sending messages into a conversation (SPEC "Interactions" → Sending messages; issue "Conversations
 * out"). A send is checked (channel can carry the kind, service window, referenced messages and media,
 * communications configured), stored `pending`, shown on the conversation's sockets and queued in one
 * transaction; the `interactions.message.send` job then calls the communications service with the
 * message's idempotency key and records `sent` or `failed`. Later statuses arrive by webhook and only
 * move forward. A failed message can be sent again once (`retry`).
 */
import { randomUUID } from 'node:crypto';
import DataLoader from 'dataloader';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../../db/client.js';
import { isUniqueViolation } from '../../../db/db-errors.js';
import type { EventBus } from '../../../platform/events/bus.js';
import type { Queue, JobContext } from '../../../platform/queue/queue.js';
import type { RealtimeEmitter } from '../../../platform/realtime/events.js';
import { conflict, notFound, unprocessable, validationFailed } from '../../../platform/errors.js';
import { isCommunicationsError, type CommunicationsClient, type CommunicationsPlatform } from '../../../integrations/communications/index.js';
import type { CommunicationsConfigService } from '../communications/index.js';
import type { TemplateService } from '../templates/index.js';
import * as repo from './outbound.repository.js';
import { changeConversations, type ConversationChange } from '../activity/index.js';
import { ChangeEvents } from '../../../platform/transactions/change-events.js';
import type { AnyOutboundBody } from '../message-kinds/index.js';
import { buildPlatformMessage, channelOf, channelOfCode, platformCarries, type ResolvedReferences } from '../channels/index.js';
import { toMessageResponse, type MessageRow } from '../conversations/index.js';
import type { MessageResponse } from '../conversations/index.js';
import { emitMessageCreated, emitMessageStatus, emitConversationUpdated } from '../conversations/index.js';
import type { ChannelTypeCode, Platform } from '../model/index.js';
import { announceAssignment, type EventOrigin, type MessageOutboundEvent } from '../events/index.js';
import { serviceWindowExpiresAt } from '../conversations/index.js';
import { claimConversation, getConversation, mayAnswer, queuesOfMembers, viewerOf, type ConversationViewer } from '../conversations/index.js';
import type { ConversationRow } from '../conversations/index.js';
import type { SlaClocks } from '../service-levels/index.js';

const SEND_QUEUE = 'interactions.message.send';
/** Milliseconds acceptances gather before they are recorded together (the message is already delivered). */
const ACCEPTANCE_WINDOW_MS = 10;
const READ_RECEIPT_QUEUE = 'interactions.read-receipt';

declare module '../../../platform/queue/queue.js' {
  interface JobMap {
    'interactions.message.send': { messageId: number };
    'interactions.read-receipt': { messageId: number };
  }
}

const taken = (id: number) =>
  conflict('conversation_taken', 'Another agent answers this conversation: only its assignee (or a holder of conversations.reply_any) may reply', {
    conversation_id: id,
  });

/** Whether the communications service carries `platform` (else this service does: the website chat). */
const viaCommunications = (platform: Platform): platform is CommunicationsPlatform => !channelOf(platform).carriedByService;
const platformOf = (code: ChannelTypeCode): Platform => channelOfCode(code).platform;

/**
 * Who asks to send: an employee through the API, or the system (a workflow) with its origin. With an
 * `idempotencyKey` a repeated send returns the message the first one created instead of sending again.
 */
export type Sender = {
  entityId: number;
  employeeId: number | null;
  /** The employee's permissions (or its `viewer`): who may answer what (conversation-visibility.ts). The system has none and is not limited. */
  permissions?: ReadonlySet<string> | undefined;
  viewer?: ConversationViewer | undefined;
  origin?: EventOrigin | undefined;
  idempotencyKey?: string | undefined;
};

export interface OutboundService {
  /** Stores, shows and queues a message; returns it `pending`. Errors: 404, 400 `validation_failed`, 422 (see docs/api.md). */
  send(sender: Sender, conversationId: number, input: AnyOutboundBody): Promise<MessageResponse>;
  /** Sends failed message `messageId` again, once. 409 `message_not_retryable` otherwise. */
  retry(sender: Sender, conversationId: number, messageId: number): Promise<MessageResponse>;
  /** Queues the platform read receipt of the conversation's latest inbound message (WhatsApp: that message; Messenger, Instagram: the chat marked seen). */
  queueReadReceipt(entityId: number, conversationId: number): Promise<void>;
  /** Creates the queues; starts the workers when `workers`. */
  start(options: { workers: boolean }): Promise<void>;
}

/**
 * Delivery on a channel this service carries itself (the adapter's `carriedByService`; the website chat, issue
 * 32), handed in at composition by that channel's folder: no communications service, the customer's open
 * sessions instead. Both are called after the message is recorded.
 */
export interface DirectDelivery {
  /** Pushes an agent's message to the customer of chat `externalChatId` on the account `externalAccountId` (a website token). */
  deliver(input: { externalAccountId: string; externalChatId: string; message: MessageRow; mediaUrl: string | null }): void;
  /** Tells the customer's sessions that an agent read their messages up to `upTo`. */
  read(input: { externalAccountId: string; externalChatId: string; upTo: MessageRow }): void;
}

export function createOutboundService(deps: {
  db: Db;
  queue: Queue;
  events: EventBus;
  realtime: RealtimeEmitter;
  client: CommunicationsClient;
  config: CommunicationsConfigService;
  templates: Pick<TemplateService, 'checkSend'>;
  /** Media objects of the entity (the media module): their status, and a signed link once ready. */
  media: {
    status(entityId: number, id: number): Promise<'pending' | 'processing' | 'ready' | 'failed' | undefined>;
    link(entityId: number, id: number): Promise<string | undefined>;
  };
  log: FastifyBaseLogger;
  /**
   * Seconds after which a send attempt still unfinished counts as lost (its process died) and is tried
   * again with the same idempotency key; a few times the communications client's timeout.
   */
  attemptExpirySeconds: number;
  /**
   * Per platform carried by this service, its delivery; a message on such a platform without one fails with
   * `web_delivery_unavailable` (the website chat is the one today).
   */
  direct?: Partial<Record<Platform, DirectDelivery>>;
  /** Observes, per platform, the seconds from a message's storing to the platform's acceptance (`/metrics`). */
  sendLatency?: { observe(labels: { platform: string }, seconds: number): void };
  /** The SLA clocks: an agent's message stops the response clocks in the send's transaction. */
  sla: SlaClocks;
  now?: () => Date;
}): OutboundService {
  const { db } = deps;
  const now = deps.now ?? (() => new Date());

  // The send attempts running at once (a batch of send jobs) claim their messages in one statement, and
  // the acceptances that arrive within a few milliseconds of each other are recorded in one.
  const claims = new DataLoader<number, repo.ClaimedMessage | undefined>(
    async (ids) => {
      const claimed = await repo.countAttempts(db, ids);
      return ids.map((id) => claimed.get(id));
    },
    { cache: false, maxBatchSize: 100, batchScheduleFn: (run) => setImmediate(run) },
  );
  const acceptances = new DataLoader<repo.Acceptance, MessageRow | undefined>(
    async (accepted) => {
      const recorded = await repo.recordAcceptances(db, accepted);
      return accepted.map((a) => recorded.get(a.message.id));
    },
    { cache: false, maxBatchSize: 100, batchScheduleFn: (run) => setTimeout(run, ACCEPTANCE_WINDOW_MS) },
  );

  async function references(entityId: number, conversationId: number, input: AnyOutboundBody): Promise<ResolvedReferences & { mediaObjectId?: number }> {
    const body = input.body as { reply_to_message_id?: number; media_id?: number; id?: string; link?: string; message_id?: number };
    const refs: ResolvedReferences & { mediaObjectId?: number } = {};
    if (body.reply_to_message_id !== undefined) {
      const m = await repo.findConversationMessage(db, entityId, conversationId, body.reply_to_message_id);
      if (!m || m.externalMessageId.startsWith('crm:'))
        throw validationFailed([{ field: '/body/reply_to_message_id', message: 'must be a sent message of this conversation' }]);
      refs.replyTo = m.externalMessageId;
    }
    if (input.kind === 'reaction') {
      const m = await repo.findConversationMessage(db, entityId, conversationId, input.body.message_id);
      if (!m || m.externalMessageId.startsWith('crm:'))
        throw validationFailed([{ field: '/body/message_id', message: 'must be a sent message of this conversation' }]);
      refs.reactTo = m.externalMessageId;
    }
    if (['image', 'video', 'audio', 'document', 'sticker'].includes(input.kind)) {
      const sources = [body.id, body.link, body.media_id].filter((v) => v !== undefined).length;
      if (sources !== 1) throw validationFailed([{ field: '/body', message: 'give exactly one of id, link or media_id' }]);
      if (body.media_id !== undefined) {
        const status = await deps.media.status(entityId, body.media_id);
        if (status !== 'ready' && status !== 'processing')
          throw validationFailed([{ field: '/body/media_id', message: 'must be a media object of the entity, ready or processing' }]);
        // The link is signed at each send attempt (links expire; a processing object has none yet).
        refs.mediaLink = `crm-media:${body.media_id}`;
        refs.mediaObjectId = body.media_id;
      }
    }
    return refs;
  }

  async function queueSend(change: ConversationChange, messageId: number): Promise<void> {
    await deps.queue.enqueue(change, SEND_QUEUE, { messageId }, { singletonKey: `message:${messageId}` });
  }

  /** One attempt to send message `messageId` (the `interactions.message.send` job). */
  async function deliver(messageId: number, job: JobContext): Promise<void> {
    const claimed = await claims.load(messageId);
    if (!claimed) return; // already sent or failed: a repeated job does nothing
    const { message: m, externalChatId, externalAccountId } = claimed;
    const content = m.content as StoredOutbound;
    if (!viaCommunications(content.platform)) return deliverDirectly(m, externalChatId, externalAccountId, content, job);
    const platform = content.platform;
    let message = content.platform_message;
    try {
      const target = await deps.config.resolveTarget(m.entityId);
      if (content.media_object_id !== undefined) {
        const status = await deps.media.status(m.entityId, content.media_object_id);
        const lastAttempt = job.attempt > job.retryLimit;
        if (status === 'processing' && !lastAttempt) throw new Error(`media ${content.media_object_id} is still processing`); // retried with backoff
        const link = status === 'ready' ? await deps.media.link(m.entityId, content.media_object_id) : undefined;
        if (link === undefined) return await fail(m, externalChatId, { code: 'media_unavailable', title: `The media object is ${status ?? 'gone'}` });
        message = withMediaLink(message, link);
      }
      const account = { platform, accountId: externalAccountId };
      const { providerMessageId } = await deps.client.sendMessage(target, account, { idempotencyKey: m.clientMessageId!, message });
      const acceptedAt = now();
      const row = await acceptances.load({ message: m, providerMessageId, at: acceptedAt });
      if (row) {
        deps.sendLatency?.observe({ platform }, Math.max(0, acceptedAt.getTime() - m.occurredAt.getTime()) / 1000);
        await publishStatus(row, externalChatId);
      }
    } catch (err) {
      if (isCommunicationsError(err)) {
        const error = { code: err.details.providerCode ?? err.kind, kind: err.kind, title: err.message };
        const lastAttempt = job.attempt > job.retryLimit;
        if (err.retryable && !lastAttempt) throw err; // the queue retries with backoff
        return await fail(m, externalChatId, error);
      }
      if ((err as { code?: string }).code === 'communications_not_configured')
        return await fail(m, externalChatId, { code: 'communications_not_configured', title: (err as Error).message });
      throw err;
    }
  }

  /**
   * A send attempt on a channel this service carries: the message goes to the customer's sessions (media as a
   * signed link, signed at each attempt) and is `sent` at once; `delivered` and `read` come from the customer
   * (the website chat's visitor API).
   */
  async function deliverDirectly(m: MessageRow, externalChatId: string, externalAccountId: string, content: StoredOutbound, job: JobContext): Promise<void> {
    const delivery = deps.direct?.[content.platform];
    if (delivery === undefined)
      return fail(m, externalChatId, { code: 'web_delivery_unavailable', title: `The ${content.platform} channel is not running here` });
    let mediaUrl: string | null;
    if (content.media_object_id !== undefined) {
      const status = await deps.media.status(m.entityId, content.media_object_id);
      if (status === 'processing' && job.attempt <= job.retryLimit) throw new Error(`media ${content.media_object_id} is still processing`);
      const link = status === 'ready' ? await deps.media.link(m.entityId, content.media_object_id) : undefined;
      if (link === undefined) return fail(m, externalChatId, { code: 'media_unavailable', title: `The media object is ${status ?? 'gone'}` });
      mediaUrl = link;
    } else {
      const media = (content.platform_message as { media?: { link?: string } }).media;
      mediaUrl = media?.link ?? null;
    }
    const acceptedAt = now();
    const row = await acceptances.load({ message: m, providerMessageId: `${content.platform}:${m.clientMessageId!}`, at: acceptedAt });
    if (!row) return;
    delivery.deliver({ externalAccountId, externalChatId, message: row, mediaUrl });
    deps.sendLatency?.observe({ platform: content.platform }, Math.max(0, acceptedAt.getTime() - m.occurredAt.getTime()) / 1000);
    await publishStatus(row, externalChatId);
  }

  async function fail(m: MessageRow, externalChatId: string, error: Record<string, unknown>): Promise<void> {
    const row = await repo.recordFailed(db, m.id, error, now());
    if (!row) return;
    deps.log.warn({ messageId: m.id, entityId: m.entityId, error }, 'outbound message failed');
    await publishStatus(row, externalChatId);
  }

  /**
   * 404 when `viewer` may not see `c`; 409 `conversation_taken` when it sees it but it is assigned to
   * someone else and `viewer` lacks `conversations.reply_any` (issue 30, "Who may answer").
   */
  async function assertMayAnswer(viewer: ConversationViewer, c: ConversationRow): Promise<void> {
    if (viewer.viewAll && mayAnswer(viewer, c)) return;
    const visible = viewer.viewAll ? c : await getConversation(db, viewer.entityId, c.id, false, viewer);
    if (!visible) {
      // Taken from one of the agent's queues by another agent a moment ago (the claim race's loser): it was
      // theirs to see, so they learn it was taken rather than that it does not exist.
      // (`c` may be the snapshot read just before that claim committed: only its queue matters.)
      if (viewer.employeeId !== null && c.queueId !== null) {
        const queues = (await queuesOfMembers(db, viewer.entityId, [viewer.employeeId])).get(viewer.employeeId) ?? [];
        if (queues.includes(c.queueId)) throw taken(c.id);
      }
      throw notFound('conversation', c.id);
    }
    if (!mayAnswer(viewer, visible) && visible.assignmentStatus === 'assigned') throw taken(visible.id);
  }

  /**
   * An agent without `reply_any` answering an unassigned conversation claims it first, in the send's
   * transaction: one conditional UPDATE, so of two racing agents exactly one wins and the other gets 409.
   */
  async function claimIfNeeded(change: ConversationChange, viewer: ConversationViewer, c: ConversationRow): Promise<void> {
    if (mayAnswer(viewer, c) || viewer.employeeId === null) return;
    const claimed = await claimConversation(change.tx, { ...viewer, employeeId: viewer.employeeId }, c.id);
    if (!claimed) throw taken(c.id);
    announceAssignment(change, { conversation: claimed, employeeId: viewer.employeeId, via: 'manual', queueId: null }, viewer.employeeId, 'claimed');
    // The queue's other members saw it waiting: the claim takes it out of their inbox.
    if (c.queueId !== null) emitConversationUpdated(change.events, claimed, { queueId: c.queueId });
  }

  /** A status recorded by one autocommitted statement (batched acceptance, failure), published after it. */
  async function publishStatus(row: MessageRow, externalChatId: string): Promise<void> {
    const out = new ChangeEvents();
    emitMessageStatus(out, row, externalChatId);
    await out.publish(deps);
  }

  return {
    async send(sender, conversationId, input) {
      if (sender.idempotencyKey !== undefined) {
        const earlier = await repo.findByClientMessageId(db, sender.entityId, sender.idempotencyKey);
        if (earlier) return toMessageResponse(earlier);
      }
      const sending = await repo.findSendingConversation(db, sender.entityId, conversationId);
      if (!sending) throw notFound('conversation', conversationId);
      const viewer = viewerOf(sender);
      await assertMayAnswer(viewer, sending.conversation);
      const { conversation: conv } = sending;
      const platform = platformOf(sending.account.channelTypeCode);
      if (!platformCarries(platform, input.kind)) {
        throw unprocessable('unsupported_message_type', `A ${platform} conversation cannot carry ${input.kind} messages`, { platform, kind: input.kind });
      }
      // Not every channel has a service window: the website's visitor chat stays open to the agent (issue 32).
      if (input.kind !== 'template' && channelOf(platform).serviceWindow) {
        const closesAt = serviceWindowExpiresAt(conv.lastInboundAt);
        if (closesAt === null || closesAt.getTime() <= now().getTime()) {
          throw unprocessable('outside_service_window', 'The customer last wrote more than 24 hours ago: only a template can be sent', {
            closed_at: closesAt?.toISOString() ?? null,
          });
        }
      }
      if (!sending.account.isActive) throw unprocessable('channel_account_inactive', "The conversation's channel account is inactive");
      // 422 before anything is stored when nothing is configured (a channel this service carries needs none).
      if (viaCommunications(platform)) await deps.config.resolveTarget(sender.entityId);
      if (input.kind === 'template') await deps.templates.checkSend(sender.entityId, input.body);
      const refs = await references(sender.entityId, conversationId, input);
      const built = buildPlatformMessage(platform, conv.externalChatId, input, refs);
      const clientMessageId = sender.idempotencyKey ?? randomUUID();
      const at = now();
      const stored: StoredOutbound = { platform, kind: input.kind, request: input.body, platform_message: built.message };
      if (refs.mediaObjectId !== undefined) stored.media_object_id = refs.mediaObjectId;
      const storing = changeConversations(
        db,
        async (change) => {
          const { tx, events: out } = change;
          await claimIfNeeded(change, viewer, sending.conversation);
          const { message, conversation: inserted } = await repo.insertPending(tx, {
            entityId: sender.entityId,
            conversationId,
            type: built.type,
            text: built.text,
            content: stored,
            externalMessageId: `crm:${clientMessageId}`,
            clientMessageId,
            replyToExternalId: refs.replyTo ?? null,
            sentByEmployeeId: sender.employeeId,
            origin: sender.origin ?? null,
            occurredAt: at,
          });
          await queueSend(change, message.id);
          const actorEmployeeId = sender.employeeId;
          // An agent's message is a response for the SLA clocks; a workflow's is not (docs/decisions.md "What counts as a response").
          const conversation = actorEmployeeId === null ? inserted : await deps.sla.agentResponded(change, inserted, at);
          change.log.record({ kind: 'message_out', conversation, at: message.occurredAt, actorEmployeeId, data: { message_id: message.id } });
          // The conversation's first only (the log drops a second); a workflow's message is not a response.
          if (actorEmployeeId !== null)
            change.log.record({ kind: 'first_response', conversation, at: message.occurredAt, actorEmployeeId, data: { message_id: message.id } });
          emitMessageCreated(out, conversation, message);
          emitConversationUpdated(out, conversation);
          out.domainEvent('message.outbound', outboundEvent(conversation, message, sender));
          return message;
        },
        deps,
      );
      const row = await storing.catch(async (err: unknown) => {
        // The same idempotency key sent concurrently: the other send stored the message.
        const earlier =
          sender.idempotencyKey !== undefined && isUniqueViolation(err)
            ? await repo.findByClientMessageId(db, sender.entityId, sender.idempotencyKey)
            : undefined;
        if (earlier) return earlier;
        throw err;
      });
      return toMessageResponse(row);
    },
    async retry(sender, conversationId, messageId) {
      const entityId = sender.entityId;
      const viewer = viewerOf(sender);
      const conv = await getConversation(db, entityId, conversationId, false, viewer);
      if (!conv) throw notFound('conversation', conversationId);
      await assertMayAnswer(viewer, conv);
      const m = await repo.findConversationMessage(db, entityId, conversationId, messageId);
      if (!m) throw notFound('message', messageId);
      const row = await changeConversations(
        db,
        async (change) => {
          await claimIfNeeded(change, viewer, conv);
          const reset = await repo.resetForRetry(change.tx, messageId, now());
          if (!reset)
            throw conflict('message_not_retryable', 'Only a failed message sent through this service can be retried, and only once', {
              status: m.status,
              retried_at: m.retriedAt?.toISOString() ?? null,
            });
          await queueSend(change, messageId);
          emitMessageStatus(change.events, reset, null);
          return reset;
        },
        deps,
      );
      return toMessageResponse(row);
    },
    async queueReadReceipt(entityId, conversationId) {
      const sending = await repo.findSendingConversation(db, entityId, conversationId);
      if (!sending) return;
      const last = await repo.latestInbound(db, entityId, conversationId);
      if (!last) return;
      const platform = platformOf(sending.account.channelTypeCode);
      if (!viaCommunications(platform)) {
        // The visitor's sockets hear it now; there is no platform receipt to queue.
        deps.direct?.[platform]?.read({
          externalAccountId: sending.account.externalAccountId,
          externalChatId: sending.conversation.externalChatId,
          upTo: last,
        });
        return;
      }
      await deps.queue.enqueue(db, READ_RECEIPT_QUEUE, { messageId: last.id }, { singletonKey: `read:${last.id}` });
    },
    async start({ workers }) {
      const expireInSeconds = deps.attemptExpirySeconds;
      await deps.queue.define(SEND_QUEUE, { retryLimit: 5, retryDelay: 1, retryBackoff: true, expireInSeconds, policy: 'short' });
      await deps.queue.define(READ_RECEIPT_QUEUE, { retryLimit: 3, retryDelay: 2, retryBackoff: true, expireInSeconds, policy: 'short' });
      if (!workers) return;
      // Sends mostly wait on the communications service: many run at once, fetched and completed in batches.
      await deps.queue.work(SEND_QUEUE, async ({ messageId }, job) => deliver(messageId, job), { pollingIntervalSeconds: 2, concurrency: 32, batchSize: 16 });
      await deps.queue.work(
        READ_RECEIPT_QUEUE,
        async ({ messageId }, job) => {
          const m = await repo.getMessage(db, messageId);
          if (!m) return;
          const sending = await repo.findSendingConversation(db, m.entityId, m.conversationId);
          if (!sending) return;
          const platform = platformOf(sending.account.channelTypeCode);
          if (!viaCommunications(platform)) return;
          try {
            const target = await deps.config.resolveTarget(m.entityId);
            const account = { platform, accountId: sending.account.externalAccountId };
            await deps.client.markRead(target, account, {
              idempotencyKey: `read:${m.id}`,
              providerMessageId: m.externalMessageId,
              recipientId: sending.conversation.externalChatId,
            });
          } catch (err) {
            // A receipt is a courtesy: retry what may pass, drop the rest.
            if (isCommunicationsError(err) && err.retryable && job.attempt <= job.retryLimit) throw err;
            deps.log.warn({ err, messageId }, 'read receipt not sent');
          }
        },
        { pollingIntervalSeconds: 1, concurrency: 2 },
      );
    },
  };
}

/** What an outbound message keeps in `content`: the request as accepted and the platform body built from it. */
interface StoredOutbound {
  platform: Platform;
  kind: string;
  request: unknown;
  platform_message: Record<string, unknown>;
  /** The media object sent as a link, signed again at each attempt (links expire). */
  media_object_id?: number;
}

function withMediaLink(message: Record<string, unknown>, link: string): Record<string, unknown> {
  const type = message.type as string | undefined;
  if (type !== undefined && typeof message[type] === 'object') return { ...message, [type]: { ...(message[type] as object), link } };
  const inner = message.message as { attachment?: { type: string; payload: object } } | undefined;
  if (inner?.attachment) return { ...message, message: { ...inner, attachment: { ...inner.attachment, payload: { ...inner.attachment.payload, url: link } } } };
  return message;
}

function outboundEvent(c: import('../conversations/index.js').ConversationRow, m: MessageRow, sender: Sender): MessageOutboundEvent {
  const event: MessageOutboundEvent = {
    type: 'message.outbound',
    entity_id: c.entityId,
    contact_id: c.contactId,
    lead_id: c.leadId,
    group_id: c.groupId,
    conversation_id: c.id,
    channel_type_code: c.channelTypeCode,
    message_id: m.id,
    message_type: m.type,
    message_text: m.text ?? '',
    sent_by_employee_id: sender.employeeId,
    external_chat_id: c.externalChatId,
    entity_channel_account_id: c.entityChannelAccountId,
    occurred_at: m.occurredAt.toISOString(),
  };
  if (sender.origin !== undefined) event.origin = sender.origin;
  return event;
}
