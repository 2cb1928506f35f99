/**
 * The website chat (issue 32): a web account's settings (staff), and the visitor side: sessions (start,
 * resume with rotation, identity verification), sending into the same webhook intake as every channel, uploads
 * through the media module, the conversation's history, read receipts and typing both ways.
 *
 * Isolation: a visitor token names its visitor, entity, account and chat id; every request checks them
 * against the website token of the URL and the visitor's current token generation, and reads only by
 * (entity, account, chat id). A chat id is `v:<uuid>` (random, per visitor) or `u:<identifier>` (only with
 * a valid identity signature): without one, no visitor reaches another's contact or conversation.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Database, Db } from '../../../../../db/client.js';
import type { Principal } from '../../../../../platform/auth/authenticator.js';
import type { SealedBox } from '../../../../../platform/crypto/sealed-box.js';
import { AppError, forbidden, notFound, unauthorized, validationFailed } from '../../../../../platform/errors.js';
import type { RealtimeEmitter } from '../../../../../platform/realtime/events.js';
import { contentTypesOf, MEDIA_SIZE_LIMITS, type MediaService } from '../../../../media/index.js';
import { actorOf, type AuditTrail } from '../../../../audit/index.js';
import { insertNewIntakeEvents, type IntakeWorker } from '../../../intake/index.js';
import { chatKey, eventKey, type CanonicalEvent } from '../../../model/index.js';
import { conversationRooms, getConversation, viewerOf, type MessageRow } from '../../../conversations/index.js';
import type { PrechatFields, WidgetAppearance } from '../../../model/index.js';
import * as repo from './web-channel.repository.js';
import { checkIdentitySignature, type VisitorMessage, type VisitorTokens, type WidgetHub, type WidgetLimits } from '../widget/index.js';
import type {
  HistoryQuery,
  SendBody,
  SessionResponse,
  StartSessionBody,
  UpdateWebSettingsBody,
  UploadBody,
  WebSettingsResponse,
  WidgetConfigResponse,
} from './web-channel.schemas.js';

declare module '../../../../../platform/realtime/events.js' {
  interface ServerToClientEvents {
    'interaction.visitor.typing': (payload: { conversation_id: number; external_chat_id: string; typing: boolean }) => void;
  }
}

/** A visitor attaches images and documents (`upload` files anything else as a document, which the media module refuses). */
const VISITOR_ATTACHMENTS = {
  accept: [...contentTypesOf('image'), ...contentTypesOf('document')],
  max_bytes: { image: MEDIA_SIZE_LIMITS.image, document: MEDIA_SIZE_LIMITS.document },
};
const DEFAULT_PRECHAT: PrechatFields = { name: 'optional', email: 'optional', phone: 'off' };
const DEFAULT_APPEARANCE: WidgetAppearance = { color: '#1f6feb', position: 'right' };

/** Where a visitor request comes from: its Origin, the service's own origins (its demo page) and its address. */
export interface RequestOrigin {
  origin: string | undefined;
  /** From configuration or the accepting socket, never from `Host` (`ownOrigins`). */
  ownOrigins: string[];
  ip: string;
}

interface AccountWithSettings {
  account: repo.WebAccountRow;
  settings: repo.WebSettingsRow | undefined;
}

/** An authenticated visitor: its account, settings and row. */
export interface VisitorContext extends AccountWithSettings {
  visitor: repo.WebVisitorRow;
  visitorId: number;
  websiteToken: string;
  externalChatId: string;
  /** The generation of the token this request or socket came with. */
  tokenGeneration: number;
}

export function createWebChannelService(deps: {
  db: Db;
  audit: AuditTrail; // settings changes and secret rotations (issue 54)
  database: Pick<Database, 'preparedQuery'>;
  worker: Pick<IntakeWorker, 'dispatch'>;
  box: SealedBox;
  tokens: VisitorTokens;
  limits: WidgetLimits;
  media: Pick<MediaService, 'presignUpload' | 'finalizeUpload' | 'downloadUrls'>;
  realtime: RealtimeEmitter;
  hub: WidgetHub;
  maxTextLength: number;
  /** Seconds an identity signature holds after its timestamp. */
  identityMaxAgeSeconds: number;
}) {
  const { db } = deps;
  // Website token → account and settings, briefly: every visitor request and handshake needs them.
  const accounts = new LRUCache<string, AccountWithSettings | false>({ max: 10_000, ttl: 5_000 });
  const secretScope = (a: repo.WebAccountRow) => `web-identity|${a.entityId}|${a.id}`;

  async function accountOf(websiteToken: string): Promise<AccountWithSettings> {
    let hit = accounts.get(websiteToken);
    if (hit === undefined) {
      const account = await repo.findAccountByToken(db, websiteToken);
      hit = account ? { account, settings: await repo.findSettings(db, account.entityId, account.id) } : false;
      accounts.set(websiteToken, hit);
    }
    if (hit === false) throw notFound('website', websiteToken);
    return hit;
  }

  /** 403 `origin_not_allowed` unless `from` is one of the service's own origins or one the account allows. */
  function checkOrigin(a: AccountWithSettings, from: RequestOrigin): void {
    const { origin } = from;
    if (origin !== undefined && (from.ownOrigins.includes(origin) || (a.settings?.allowedOrigins ?? []).includes(origin))) return;
    throw forbidden('origin_not_allowed', `The website chat of this account is not allowed on ${origin ?? 'a page without an Origin'}`, {
      origin: origin ?? null,
    });
  }

  function widgetConfig(a: AccountWithSettings): WidgetConfigResponse {
    const s = a.settings;
    return {
      display_name: a.account.displayName,
      greeting_text: s?.greetingText ?? null,
      away_text: s?.awayText ?? null,
      business_hours_text: s?.businessHoursText ?? null,
      prechat_fields: s?.prechatFields ?? DEFAULT_PRECHAT,
      appearance: s?.appearance ?? DEFAULT_APPEARANCE,
      max_text_length: deps.maxTextLength,
      attachments: VISITOR_ATTACHMENTS,
    };
  }

  function settingsResponse(account: repo.WebAccountRow, s: repo.WebSettingsRow | undefined, serviceOrigin: string): WebSettingsResponse {
    return {
      entity_channel_account_id: account.id,
      website_token: account.websiteToken,
      allowed_origins: s?.allowedOrigins ?? [],
      greeting_text: s?.greetingText ?? null,
      away_text: s?.awayText ?? null,
      prechat_fields: s?.prechatFields ?? DEFAULT_PRECHAT,
      appearance: s?.appearance ?? DEFAULT_APPEARANCE,
      business_hours_text: s?.businessHoursText ?? null,
      identity_secret: { configured: (s?.identitySecretSealed ?? null) !== null, last4: s?.identitySecretLast4 ?? null },
      embed_snippet: `<script src="${serviceOrigin}/widget.js" data-website-token="${account.websiteToken}" async></script>`,
    };
  }

  async function staffAccount(caller: Pick<Principal, 'entityId'>, id: number): Promise<repo.WebAccountRow> {
    const account = await repo.findAccount(db, caller.entityId, id);
    if (!account) throw notFound('web channel account', id);
    return account;
  }

  async function issue(a: AccountWithSettings, visitor: repo.WebVisitorRow): Promise<SessionResponse> {
    const { token, expiresIn } = await deps.tokens.sign({
      vid: visitor.id,
      ent: visitor.entityId,
      acc: visitor.entityChannelAccountId,
      chat: visitor.externalChatId,
      gen: visitor.tokenGeneration,
    });
    const conversationId = await repo.findConversationId(db, visitor.entityId, visitor.entityChannelAccountId, visitor.externalChatId);
    return {
      visitor_token: token,
      expires_in: expiresIn,
      visitor: { id: visitor.id, name: visitor.name, email: visitor.email, phone: visitor.phone, verified: visitor.identifier !== null },
      conversation_id: conversationId ?? null,
      widget: widgetConfig(a),
    };
  }

  function identitySecretOf(a: AccountWithSettings): string | undefined {
    const sealed = a.settings?.identitySecretSealed;
    return sealed ? deps.box.open(sealed, secretScope(a.account)) : undefined;
  }

  /** Who a visitor token names, checked against the URL's website token and the visitor's current generation. */
  async function authenticate(websiteToken: string, token: string | undefined, from: RequestOrigin): Promise<VisitorContext> {
    await deps.limits.byIp(from.ip);
    const a = await accountOf(websiteToken);
    checkOrigin(a, from);
    if (token === undefined) throw unauthorized('unauthenticated', 'A visitor token is required');
    const claims = await deps.tokens.verify(token);
    if (claims.acc !== a.account.id || claims.ent !== a.account.entityId) throw unauthorized('invalid_visitor_token', 'The visitor token is not valid');
    const visitor = await repo.findVisitor(db, claims.ent, claims.acc, claims.vid, claims.chat);
    if (!visitor) throw unauthorized('invalid_visitor_token', 'The visitor token is not valid');
    if (visitor.tokenGeneration !== claims.gen) throw unauthorized('visitor_token_revoked', 'A newer visitor token replaced this one: resume the session');
    await deps.limits.byVisitor(visitor.id);
    return { ...a, visitor, visitorId: visitor.id, websiteToken, externalChatId: visitor.externalChatId, tokenGeneration: claims.gen };
  }

  async function conversationIdOf(v: VisitorContext): Promise<number | undefined> {
    return repo.findConversationId(db, v.account.entityId, v.account.id, v.externalChatId);
  }

  /** Puts one canonical web event into the intake and hands it to the worker: the path every channel's events take. */
  async function intake(event: CanonicalEvent): Promise<boolean> {
    const key = chatKey(event);
    const [row] = await insertNewIntakeEvents(deps.database, [{ eventKey: eventKey(event), chatKey: key, event }], 2);
    if (row) deps.worker.dispatch([{ id: row.id, chatKey: key }]);
    return row !== undefined;
  }

  async function mediaUrls(entityId: number, rows: MessageRow[], origin: string): Promise<Map<number, string>> {
    const ids = rows.flatMap((m) => {
      const id = (m.content as { media_object_id?: unknown } | null)?.media_object_id;
      return typeof id === 'number' ? [id] : [];
    });
    if (ids.length === 0) return new Map();
    const urls = await deps.media.downloadUrls(entityId, ids, origin);
    return new Map([...urls].map(([id, u]) => [id, u.url]));
  }

  async function seen(v: VisitorContext, status: 'delivered' | 'read', messageId: number): Promise<void> {
    const conversationId = await conversationIdOf(v);
    if (conversationId === undefined) throw notFound('message', messageId);
    const m = await repo.findMessage(db, v.account.entityId, conversationId, messageId);
    if (!m || m.direction !== 'outbound') throw notFound('message', messageId);
    // A watermark on the visitor's own chat: the agent's messages up to this one.
    await intake({
      kind: 'status',
      platform: 'web',
      account_id: v.websiteToken,
      external_chat_id: v.externalChatId,
      message_id: null,
      up_to: m.occurredAt.toISOString(),
      status,
      occurred_at: new Date().toISOString(),
      errors: null,
    });
  }

  const audited = (caller: Principal, id: number, action: string, change: { before?: Record<string, unknown>; after?: Record<string, unknown> }) =>
    deps.audit.record(db, { entityId: caller.entityId, actor: actorOf(caller), action, target: { type: 'entity_channel_account', id }, ...change });
  return {
    accountOf,
    checkOrigin,
    authenticate,
    seen,

    async getSettings(caller: Pick<Principal, 'entityId'>, id: number, serviceOrigin: string): Promise<WebSettingsResponse> {
      const account = await staffAccount(caller, id);
      return settingsResponse(account, await repo.findSettings(db, caller.entityId, id), serviceOrigin);
    },
    async updateSettings(caller: Principal, id: number, body: UpdateWebSettingsBody, serviceOrigin: string): Promise<WebSettingsResponse> {
      const account = await staffAccount(caller, id);
      const before = settingsResponse(account, await repo.findSettings(db, caller.entityId, id), serviceOrigin);
      const row = await repo.upsertSettings(
        db,
        caller.entityId,
        id,
        { prechatFields: DEFAULT_PRECHAT, appearance: DEFAULT_APPEARANCE },
        {
          ...(body.allowed_origins !== undefined ? { allowedOrigins: [...new Set(body.allowed_origins.map((o) => o.toLowerCase()))] } : {}),
          ...(body.greeting_text !== undefined ? { greetingText: body.greeting_text } : {}),
          ...(body.away_text !== undefined ? { awayText: body.away_text } : {}),
          ...(body.prechat_fields !== undefined ? { prechatFields: body.prechat_fields } : {}),
          ...(body.appearance !== undefined ? { appearance: body.appearance } : {}),
          ...(body.business_hours_text !== undefined ? { businessHoursText: body.business_hours_text } : {}),
        },
      );
      accounts.delete(account.websiteToken);
      const after = settingsResponse(account, row, serviceOrigin);
      await audited(caller, id, 'web_chat.settings.update', { before: { ...before }, after: { ...after } });
      return after;
    },
    /** Issues a new identity secret (the old one stops verifying); shown once. */
    async rotateIdentitySecret(caller: Principal, id: number): Promise<{ identity_secret: string; last4: string }> {
      const account = await staffAccount(caller, id);
      const secret = `wis_${randomBytes(32).toString('base64url')}`;
      const last4 = secret.slice(-4);
      await repo.upsertSettings(
        db,
        caller.entityId,
        id,
        { prechatFields: DEFAULT_PRECHAT, appearance: DEFAULT_APPEARANCE },
        { identitySecretSealed: deps.box.seal(secret, secretScope(account)), identitySecretLast4: last4 },
      );
      accounts.delete(account.websiteToken);
      await audited(caller, id, 'web_chat.identity_secret.rotate', {});
      return { identity_secret: secret, last4 };
    },

    async config(websiteToken: string, from: RequestOrigin): Promise<WidgetConfigResponse> {
      await deps.limits.byIp(from.ip);
      const a = await accountOf(websiteToken);
      checkOrigin(a, from);
      return widgetConfig(a);
    },

    /**
     * Starts or resumes a visitor: with a valid, unexpired identity signature, the site's customer (same chat
     * on every device, whose tokens coexist); else with a previous visitor token of this account, that
     * visitor (its token rotated: the replaced token's sockets are closed); else a new visitor (pre-chat
     * required fields checked, and the new-visitor limits per website and address range). 401
     * `invalid_identity_signature`, `identity_signature_expired`, `invalid_visitor_token`; 429 `rate_limited`.
     */
    async startSession(websiteToken: string, body: StartSessionBody, from: RequestOrigin): Promise<SessionResponse> {
      await deps.limits.byIp(from.ip);
      const a = await accountOf(websiteToken);
      checkOrigin(a, from);
      const prechat = body.prechat ?? {};
      const contact = { name: prechat.name?.trim() ?? null, email: prechat.email?.trim().toLowerCase() ?? null, phone: prechat.phone?.trim() ?? null };
      if (body.identity !== undefined) {
        checkIdentitySignature(identitySecretOf(a), body.identity, deps.identityMaxAgeSeconds);
        const visitor = await repo.upsertVerifiedVisitor(db, {
          entityId: a.account.entityId,
          entityChannelAccountId: a.account.id,
          externalChatId: `u:${body.identity.identifier}`,
          identifier: body.identity.identifier,
          ...contact,
        });
        return issue(a, visitor);
      }
      if (body.visitor_token !== undefined) {
        const claims = await deps.tokens.verifyForResume(body.visitor_token);
        const visitor =
          claims.acc === a.account.id && claims.ent === a.account.entityId
            ? await repo.findVisitor(db, claims.ent, claims.acc, claims.vid, claims.chat)
            : undefined;
        // A verified visitor resumes only with its signature again; a stale generation was replaced by a newer resume.
        if (!visitor || visitor.identifier !== null) throw unauthorized('invalid_visitor_token', 'The visitor token is not valid');
        const rotated = await repo.rotateVisitor(db, visitor, claims.gen);
        if (!rotated) throw unauthorized('visitor_token_revoked', 'A newer visitor token replaced this one');
        deps.hub.closeRevoked(a.account.websiteToken, rotated.externalChatId, rotated.tokenGeneration);
        return issue(a, rotated);
      }
      const fields = widgetConfig(a).prechat_fields;
      const missing = (['name', 'email', 'phone'] as const).filter((f) => fields[f] === 'required' && !contact[f]);
      if (missing.length > 0) throw validationFailed(missing.map((f) => ({ field: `/body/prechat/${f}`, message: 'is required by this website' })));
      for (const f of ['name', 'email', 'phone'] as const) if (fields[f] === 'off') contact[f] = null;
      await deps.limits.newVisitor(a.account.id, from.ip);
      const visitor = await repo.insertVisitor(db, {
        entityId: a.account.entityId,
        entityChannelAccountId: a.account.id,
        externalChatId: `v:${randomUUID()}`,
        ...contact,
      });
      return issue(a, visitor);
    },

    /** Puts the visitor's message into the intake (the same path as every channel). 400 when too long or the attachment is not theirs. */
    async send(v: VisitorContext, body: SendBody): Promise<{ message_id: string; duplicate: boolean }> {
      const text = body.text?.trim() ? body.text : null;
      if (text !== null && [...text].length > deps.maxTextLength)
        throw validationFailed([{ field: '/body/text', message: `must be at most ${deps.maxTextLength} characters` }]);
      if (text === null && body.attachment === undefined) throw validationFailed([{ field: '/body/text', message: 'give a text or an attachment' }]);
      const { visitor, account } = v;
      let type = 'text';
      const content: Record<string, unknown> = {
        visitor: { name: visitor.name, email: visitor.email, phone: visitor.phone, verified: visitor.identifier !== null },
      };
      if (body.attachment !== undefined) {
        const { media_id: mediaId, upload_ticket: ticket } = body.attachment;
        if (!deps.tokens.checkUploadTicket(visitor.id, mediaId, ticket))
          throw validationFailed([{ field: '/body/attachment/upload_ticket', message: 'is not the ticket of an upload of this visitor' }]);
        const { media } = await deps.media.finalizeUpload(
          { entityId: account.entityId, employeeId: null, visitor: { id: visitor.id, websiteId: account.id } },
          { media_id: mediaId },
        );
        type = media.kind;
        content.media_object_id = media.id;
        content.file_name = media.file_name;
      }
      const messageId = `web:${visitor.id}:${body.client_message_id ?? randomUUID()}`;
      const accepted = await intake({
        kind: 'message',
        platform: 'web',
        account_id: v.websiteToken,
        external_chat_id: v.externalChatId,
        direction: 'inbound',
        message_id: messageId,
        occurred_at: new Date().toISOString(),
        sender: { id: v.externalChatId, name: visitor.name, phone: visitor.phone },
        message: { type: type as 'text', text, content, reply_to: null, media_id: null },
      });
      return { message_id: messageId, duplicate: !accepted };
    },

    /**
     * Presigns an upload of an image or a document (the media module's limits per kind) and gives the ticket
     * that attaches it. It counts against the visitor's and the website's budgets, never the company's
     * quota: 429 `upload_limit_reached`, with no figures.
     */
    async upload(v: VisitorContext, body: UploadBody, origin: string) {
      const kind = body.content_type.toLowerCase().startsWith('image/') ? 'image' : 'document';
      const presigned = await deps.media.presignUpload(
        { entityId: v.account.entityId, employeeId: null, visitor: { id: v.visitorId, websiteId: v.account.id } },
        { ...body, kind },
        origin,
      );
      return {
        media_id: presigned.media.id,
        upload_ticket: deps.tokens.uploadTicket(v.visitorId, presigned.media.id),
        upload: { url: presigned.upload.url, method: presigned.upload.method, headers: presigned.upload.headers },
      };
    },

    /** The visitor's conversation, newest first. */
    async history(v: VisitorContext, q: HistoryQuery, origin: string): Promise<{ conversation_id: number | null; data: VisitorMessage[] }> {
      const conversationId = await conversationIdOf(v);
      if (conversationId === undefined) return { conversation_id: null, data: [] };
      const rows = await repo.visitorHistory(db, v.account.entityId, conversationId, q.limit, q.before);
      const urls = await mediaUrls(v.account.entityId, rows, origin);
      return { conversation_id: conversationId, data: rows.map((m) => toVisitorMessage(m, urlOf(m, urls))) };
    },

    conversationOf: async (v: VisitorContext) => (await conversationIdOf(v)) ?? null,

    /** The visitor types: the agents who see the conversation hear `interaction.visitor.typing`. */
    async visitorTyping(v: VisitorContext, typing: boolean): Promise<void> {
      const conversationId = await conversationIdOf(v);
      if (conversationId === undefined) return;
      const c = await getConversation(db, v.account.entityId, conversationId);
      if (!c) return;
      deps.realtime.toEntity(
        c.entityId,
        'interaction.visitor.typing',
        { conversation_id: c.id, external_chat_id: c.externalChatId, typing },
        conversationRooms(c),
      );
    },

    /** An agent types in web conversation `id` (one they see): the visitor's sockets hear `widget.typing`. 404 otherwise. */
    async agentTyping(caller: Principal, id: number, typing: boolean): Promise<void> {
      const c = await getConversation(db, caller.entityId, id, false, viewerOf(caller));
      if (!c) throw notFound('conversation', id);
      if (c.channelTypeCode !== 'web') throw new AppError(422, 'unsupported_channel', 'Unprocessable', 'Typing indicators reach web conversations only');
      const account = await repo.findAccount(db, caller.entityId, c.entityChannelAccountId);
      if (account) deps.realtime.toVisitor(account.websiteToken, c.externalChatId, 'widget.typing', { typing });
    },
  };
}
export type WebChannelService = ReturnType<typeof createWebChannelService>;

function urlOf(m: MessageRow, urls: Map<number, string>): string | null {
  const content = (m.content ?? {}) as { media_object_id?: number; platform_message?: { media?: { link?: string } } };
  if (typeof content.media_object_id === 'number') return urls.get(content.media_object_id) ?? null;
  const link = content.platform_message?.media?.link;
  return typeof link === 'string' && !link.startsWith('crm-media:') ? link : null;
}

/** A message as the visitor sees it: text stays text; media as a (signed) link. */
export function toVisitorMessage(m: MessageRow, mediaUrl: string | null): VisitorMessage {
  const content = (m.content ?? {}) as { file_name?: unknown; request?: { filename?: unknown } };
  const filename = typeof content.file_name === 'string' ? content.file_name : typeof content.request?.filename === 'string' ? content.request.filename : null;
  return {
    id: m.id,
    author: m.direction === 'inbound' ? 'visitor' : 'agent',
    type: m.type,
    text: m.text,
    media: mediaUrl !== null ? { url: mediaUrl, kind: m.type, filename } : null,
    status: m.status,
    occurred_at: m.occurredAt.toISOString(),
  };
}
