/**
 * Canned replies (issue 49): saved answers an agent finds by shortcode or words and sends into a conversation,
 * filled with the conversation's contact, lead, agent and entity, and with what the client asked the agent for.
 *
 * Who: everyone keeps personal replies (only their owner sees, changes or deletes them); `canned_replies.manage`
 * holders write the queue and entity replies and see every queue's; a queue's members use its replies; every
 * member uses the entity's. Another entity's reply, or one the caller may not use, is 404.
 * Sending goes through the send path (visibility, reply rights, the claim): the text, then one message per
 * attachment; outside WhatsApp's service window the named template instead. Each send counts one use.
 * Custom field variables (`{{contact.custom.<id>}}`, `{{group.custom.<id>}}`) must name a field of the caller's
 * entity for that record type, with text (not an image, video or PDF), when the reply is saved; a field deleted
 * since, or without a value on the conversation's contact or group, is `missing` like any variable.
 * Errors: 400 `validation_failed` (`unknown_variable` items), 404, 409 `shortcode_taken`, 422 `canned_reply_incomplete`.
 */
import type { Db } from '../../../db/client.js';
import type { Principal } from '../../../platform/auth/authenticator.js';
import { isUniqueViolation } from '../../../db/db-errors.js';
import { conflict, notFound, permissionDenied, unprocessable, validationFailed, type FieldError } from '../../../platform/errors.js';
import type { CustomFieldTexts } from '../../custom-fields/index.js';
import type { MediaService } from '../../media/index.js';
import type { RecordCard } from '../../records/index.js';
import { channelOfCode } from '../channels/index.js';
import { getConversation, queuesOfMembers, serviceWindowExpiresAt, viewerOf, type MessageResponse } from '../conversations/index.js';
import type { OutboundService } from '../outbound/index.js';
import { findQueue } from '../routing/index.js';
import * as repo from './canned-reply.repository.js';
import type {
  CannedReplyListQuery,
  CannedReplyResponse,
  CreateCannedReplyBody,
  RenderCannedReplyBody,
  RenderedCannedReply,
  UpdateCannedReplyBody,
} from './canned-reply.schemas.js';
import {
  customFieldVariables,
  fill,
  placeholdersOf,
  searchKey,
  unknownVariable,
  type CannedReplyVariable,
  type CustomFieldHolder,
} from './canned-reply.variables.js';

/** Writing queue and entity replies (our documented addition to SPEC's catalogue). */
const MANAGE_CANNED_REPLIES = 'canned_replies.manage';
/** Media kinds a reply may attach: each is sent as the message kind of the same name. */
const ATTACHABLE = new Set(['image', 'document', 'video', 'audio']);

export interface CannedReplies {
  list(p: Principal, q: CannedReplyListQuery): Promise<{ data: CannedReplyResponse[] }>;
  get(p: Principal, id: number): Promise<CannedReplyResponse>;
  create(p: Principal, body: CreateCannedReplyBody): Promise<CannedReplyResponse>;
  update(p: Principal, id: number, body: UpdateCannedReplyBody): Promise<CannedReplyResponse>;
  remove(p: Principal, id: number): Promise<void>;
  render(p: Principal, id: number, body: RenderCannedReplyBody): Promise<RenderedCannedReply>;
  send(p: Principal, id: number, body: RenderCannedReplyBody): Promise<{ sent: 'text' | 'template'; messages: MessageResponse[] }>;
}

export function createCannedReplies(deps: {
  db: Db;
  media: Pick<MediaService, 'summaries'>;
  outbound: Pick<OutboundService, 'send'>;
  cards: (entityId: number, ids: { contactId: number | null; leadId: number | null }) => Promise<RecordCard>;
  names: { entity(entityId: number): Promise<{ name: string } | undefined>; employeeName(entityId: number, employeeId: number): Promise<string | undefined> };
  customFields: CustomFieldTexts;
}): CannedReplies {
  const { db } = deps;

  async function readerOf(p: Principal): Promise<repo.ReplyReader> {
    const queueIds = p.employeeId === null ? [] : ((await queuesOfMembers(db, p.entityId, [p.employeeId])).get(p.employeeId) ?? []);
    return { entityId: p.entityId, employeeId: p.employeeId, queueIds, manager: p.permissions.has(MANAGE_CANNED_REPLIES) };
  }

  function toResponse(r: repo.CannedReplyRow & { myUses: number }): CannedReplyResponse {
    const { variables, prompts } = placeholdersOf(r.body);
    return {
      id: r.id,
      shortcode: r.shortcode,
      title: r.title,
      body: r.body,
      scope: r.scope,
      queue_id: r.queueId,
      owner_employee_id: r.ownerEmployeeId,
      attachments: r.attachments,
      template: r.template ?? null,
      variables,
      prompts,
      usage_count: r.usageCount,
      my_usage_count: r.myUses,
      created_at: r.createdAt.toISOString(),
      updated_at: r.updatedAt.toISOString(),
    };
  }

  /**
   * 400 for unknown variables (a custom field that is not the entity's, of another record type, or without text
   * included) and attachments that are not the entity's ready image, document, video or audio.
   */
  async function check(entityId: number, body: string | undefined, attachments: number[] | undefined): Promise<void> {
    const errors: FieldError[] = [];
    if (body !== undefined) {
      const { variables, unknown } = placeholdersOf(body);
      for (const name of unknown) errors.push({ field: '/body/body', message: unknownVariable(name) });
      const named = customFieldVariables(variables);
      const fields = await deps.customFields.fieldsOf(
        entityId,
        named.map((v) => v.fieldId),
      );
      for (const v of named) {
        const field = fields.get(v.fieldId);
        if (field === undefined || field.recordType !== v.holder)
          errors.push({ field: '/body/body', message: `unknown_variable: {{${v.name}}}: custom field ${v.fieldId} is not a ${v.holder} field of the entity` });
        else if (!field.text)
          errors.push({
            field: '/body/body',
            message: `unknown_variable: {{${v.name}}}: custom field ${v.fieldId} (${field.name}, ${field.type}) has no text; attach the file instead`,
          });
      }
    }
    if (attachments !== undefined && attachments.length > 0) {
      const found = await deps.media.summaries(entityId, attachments);
      attachments.forEach((id, i) => {
        const m = found.get(id);
        if (!m) errors.push({ field: `/body/attachments/${i}`, message: `media ${id} not found` });
        else if (!ATTACHABLE.has(m.kind))
          errors.push({ field: `/body/attachments/${i}`, message: `media ${id} is a ${m.kind}: attach an image, document, video or audio` });
        else if (m.status !== 'ready') errors.push({ field: `/body/attachments/${i}`, message: `media ${id} is ${m.status}, not ready` });
      });
    }
    if (errors.length > 0) throw validationFailed(errors);
  }

  /** Reply `id` if `p` may use it; 404 otherwise (another entity's included). */
  async function usable(p: Principal, id: number): Promise<repo.CannedReplyRow & { myUses: number }> {
    const row = await repo.findUsable(db, await readerOf(p), id);
    if (!row) throw notFound('canned_reply', id);
    return row;
  }

  /** The reply `p` may change: its owner's personal one, or a queue or entity one for a manager. 404 / 403 otherwise. */
  async function writable(p: Principal, id: number) {
    const row = await usable(p, id);
    if (row.scope === 'personal' ? row.ownerEmployeeId !== p.employeeId : !p.permissions.has(MANAGE_CANNED_REPLIES))
      throw permissionDenied(MANAGE_CANNED_REPLIES);
    return row;
  }

  const taken = (shortcode: string) => conflict('shortcode_taken', `The shortcode ${shortcode} is already used in this scope`, { shortcode });
  const keys = (v: { shortcode: string; title: string; body: string }) => ({
    titleKey: searchKey(v.title),
    searchText: searchKey(`${v.shortcode} ${v.title} ${v.body}`),
  });

  async function rendered(p: Principal, id: number, body: RenderCannedReplyBody) {
    const reply = await usable(p, id);
    const c = await getConversation(db, p.entityId, body.conversation_id, false, viewerOf(p));
    if (!c) throw notFound('conversation', body.conversation_id);
    const { variables } = placeholdersOf(reply.body);
    const custom = customFieldVariables(variables);
    const needs = (prefix: string) => variables.some((v) => v.startsWith(prefix));
    // The lead's group is read from the lead, as it is now.
    const card =
      needs('contact.') || needs('lead.') || needs('group.')
        ? await deps.cards(p.entityId, { contactId: c.contactId, leadId: c.leadId })
        : { contact: null, lead: null };
    const values: Partial<Record<CannedReplyVariable, string | null>> = {
      'contact.name': card.contact?.name ?? null,
      'contact.phone': card.contact?.phone ?? null,
      'contact.email': card.contact?.email ?? null,
      'lead.name': card.lead?.name ?? null,
      'lead.erp_id': card.lead?.erp_id ?? null,
      'lead.email': card.lead?.email ?? null,
      'lead.phone': card.lead?.phone ?? null,
      'lead.tax_id': card.lead?.tax_id ?? null,
      'agent.name': needs('agent.') && p.employeeId !== null ? ((await deps.names.employeeName(p.entityId, p.employeeId)) ?? null) : null,
      'entity.name': needs('entity.') ? ((await deps.names.entity(p.entityId))?.name ?? null) : null,
    };
    const holders: Record<CustomFieldHolder, number | null> = { contact: card.contact ? c.contactId : null, group: card.lead?.group_id ?? null };
    for (const holder of Object.keys(holders) as CustomFieldHolder[]) {
      const wanted = custom.filter((v) => v.holder === holder);
      const recordId = holders[holder];
      if (wanted.length === 0 || recordId === null) continue;
      const texts = await deps.customFields.textsOf(
        p.entityId,
        holder,
        recordId,
        wanted.map((v) => v.fieldId),
      );
      for (const v of wanted) values[v.name] = texts.get(v.fieldId) ?? null;
    }
    const filled = fill(reply.body, values, body.answers ?? {});
    const windowed = channelOfCode(c.channelTypeCode).serviceWindow;
    const closesAt = serviceWindowExpiresAt(c.lastInboundAt);
    const open = !windowed || (closesAt !== null && closesAt.getTime() > Date.now());
    const summaries = reply.attachments.length > 0 ? await deps.media.summaries(p.entityId, reply.attachments) : new Map<number, { kind: string }>();
    const result: RenderedCannedReply = {
      text: filled.text,
      missing: filled.missing,
      prompts: filled.unanswered,
      attachments: reply.attachments.flatMap((mediaId) => {
        const kind = summaries.get(mediaId)?.kind;
        return kind === undefined ? [] : [{ media_id: mediaId, kind }];
      }),
      service_window_open: open,
      sends: open ? 'text' : reply.template ? 'template' : 'nothing',
      template: reply.template ?? null,
    };
    return { reply, result };
  }

  return {
    async list(p, q) {
      const raw = q.q?.trim() ?? '';
      // `/env`: what the agent types in the composer, shortcodes only; else words of the title and body too.
      const typed = raw.startsWith('/');
      const words = searchKey(typed ? raw.slice(1) : raw)
        .split(/\s+/)
        .filter(Boolean);
      const rows = await repo.listUsable(db, await readerOf(p), {
        scope: q.scope,
        prefix: words.length === 1 ? words[0] : undefined,
        words: typed ? [] : words,
        shortcodeOnly: typed && words.length > 0,
        limit: q.limit ?? 20,
      });
      return { data: rows.map(toResponse) };
    },
    async get(p, id) {
      return toResponse(await usable(p, id));
    },
    async create(p, body) {
      if (body.scope !== 'personal' && !p.permissions.has(MANAGE_CANNED_REPLIES)) throw permissionDenied(MANAGE_CANNED_REPLIES);
      if (body.scope === 'personal' && p.employeeId === null) throw permissionDenied('an employee of the entity');
      if ((body.scope === 'queue') !== (body.queue_id !== undefined))
        throw validationFailed([
          { field: '/body/queue_id', message: body.scope === 'queue' ? 'is required for a queue reply' : 'applies to queue replies only' },
        ]);
      if (body.queue_id !== undefined && !(await findQueue(db, p.entityId, body.queue_id))) throw notFound('queue', body.queue_id);
      await check(p.entityId, body.body, body.attachments);
      try {
        const row = await repo.insertReply(db, {
          entityId: p.entityId,
          scope: body.scope,
          ownerEmployeeId: body.scope === 'personal' ? p.employeeId : null,
          queueId: body.queue_id ?? null,
          shortcode: body.shortcode,
          title: body.title,
          body: body.body,
          attachments: body.attachments ?? [],
          template: body.template ?? null,
          createdByEmployeeId: p.employeeId,
          ...keys(body),
        });
        return toResponse({ ...row, myUses: 0 });
      } catch (err) {
        if (isUniqueViolation(err)) throw taken(body.shortcode);
        throw err;
      }
    },
    async update(p, id, body) {
      const row = await writable(p, id);
      await check(p.entityId, body.body, body.attachments);
      const next = { shortcode: body.shortcode ?? row.shortcode, title: body.title ?? row.title, body: body.body ?? row.body };
      try {
        const updated = await repo.updateReply(db, p.entityId, id, {
          ...next,
          ...(body.attachments !== undefined ? { attachments: body.attachments } : {}),
          ...(body.template !== undefined ? { template: body.template } : {}),
          ...keys(next),
        });
        if (!updated) throw notFound('canned_reply', id);
        return toResponse({ ...updated, myUses: row.myUses });
      } catch (err) {
        if (isUniqueViolation(err)) throw taken(next.shortcode);
        throw err;
      }
    },
    async remove(p, id) {
      await writable(p, id);
      await repo.deleteReply(db, p.entityId, id);
    },
    async render(p, id, body) {
      return (await rendered(p, id, body)).result;
    },
    async send(p, id, body) {
      const { reply, result } = await rendered(p, id, body);
      const sender = { entityId: p.entityId, employeeId: p.employeeId, permissions: p.permissions };
      const conversationId = body.conversation_id;
      const messages: MessageResponse[] = [];
      if (result.sends === 'template') {
        messages.push(
          await deps.outbound.send(sender, conversationId, {
            kind: 'template',
            body: { name: reply.template!.name, language: { code: reply.template!.language } },
          }),
        );
        await repo.countUse(db, p.entityId, id, p.employeeId);
        return { sent: 'template', messages };
      }
      if (result.missing.length > 0 || result.prompts.length > 0) {
        throw unprocessable('canned_reply_incomplete', 'Fill what is missing before sending (or edit the text and send it yourself)', {
          missing: result.missing,
          prompts: result.prompts,
        });
      }
      // Outside the window with no template: the send path answers 422 outside_service_window.
      if (result.text.trim() !== '') messages.push(await deps.outbound.send(sender, conversationId, { kind: 'text', body: { body: result.text } }));
      for (const a of result.attachments) {
        messages.push(await deps.outbound.send(sender, conversationId, { kind: a.kind as 'image', body: { media_id: a.media_id } }));
      }
      await repo.countUse(db, p.entityId, id, p.employeeId);
      return { sent: 'text', messages };
    },
  };
}
