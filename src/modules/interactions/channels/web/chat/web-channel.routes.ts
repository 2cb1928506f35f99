/**
 * Routes of the website chat (issue 32). Staff (JWT, codes `entity_channel_accounts.*`): a web account's
 * settings and identity secret, and the agent's typing indicator. Visitors (`/api/widget/:website_token/*`,
 * no staff JWT, `auth: 'none'` to the guard): their own check is the visitor token (`Authorization: Bearer`),
 * the origin check (every request, CORS answered here for the account's allowed origins only) and the rate
 * limits per address and per visitor.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { principalOf } from '../../../../../platform/auth/guard.js';
import { bearerToken } from '../../../../../platform/auth/jwt.js';
import { IdParams } from '../../../../../platform/http/ids.js';
import { problemResponse } from '../../../../../platform/http/openapi.js';
import { ownOrigins, serviceOrigin } from '../../../../../platform/http/service-origin.js';
import {
  HistoryQuery,
  HistoryResponse,
  IdentitySecretResponse,
  ReadBody,
  SendBody,
  SendResponse,
  SessionResponse,
  StartSessionBody,
  TypingBody,
  UpdateWebSettingsBody,
  UploadBody,
  UploadResponse,
  WebSettingsResponse,
  WidgetConfigResponse,
  WidgetParams,
} from './web-channel.schemas.js';
import type { RequestOrigin, WebChannelService } from './web-channel.service.js';

/** Staff routes, bare and under /api. */
export const webChannelStaffRoutes: FastifyPluginAsyncTypebox<{ service: WebChannelService }> = async (app, { service }) => {
  const tags = ['records'];
  const notWeb = { 404: problemResponse('No web channel account with this id in the active entity') };
  app.get(
    '/entity-channel-accounts/:id/web',
    {
      config: { auth: 'entity_channel_accounts.view' },
      schema: { tags, summary: "A web account's website chat settings", params: IdParams, response: { 200: WebSettingsResponse, ...notWeb } },
    },
    async (request) => service.getSettings(principalOf(request), request.params.id, serviceOrigin(request)),
  );
  app.patch(
    '/entity-channel-accounts/:id/web',
    {
      config: { auth: 'entity_channel_accounts.edit' },
      schema: {
        tags,
        summary: "Change a web account's website chat settings",
        params: IdParams,
        body: UpdateWebSettingsBody,
        response: { 200: WebSettingsResponse, ...notWeb },
      },
    },
    async (request) => service.updateSettings(principalOf(request), request.params.id, request.body, serviceOrigin(request)),
  );
  app.post(
    '/entity-channel-accounts/:id/web/identity-secret',
    {
      config: { auth: 'entity_channel_accounts.edit' },
      schema: {
        tags,
        summary: 'Issue a new identity verification secret (shown once; the previous one stops verifying)',
        params: IdParams,
        response: { 201: IdentitySecretResponse, ...notWeb },
      },
    },
    async (request, reply) => reply.code(201).send(await service.rotateIdentitySecret(principalOf(request), request.params.id)),
  );
  app.post(
    '/interactions/conversations/:id/typing',
    {
      config: { auth: 'jwt' },
      schema: {
        tags: ['interactions'],
        summary: "The agent types (or stopped) in a web conversation: the visitor's widget shows it",
        params: IdParams,
        body: TypingBody,
        response: { 204: Type.Null(), 422: problemResponse('`unsupported_channel`: not a web conversation') },
      },
    },
    async (request, reply) => {
      await service.agentTyping(principalOf(request), request.params.id, request.body.typing);
      return reply.code(204).send(null);
    },
  );
};

const VISITOR_ERRORS = {
  401: problemResponse('`unauthenticated`, `invalid_visitor_token`, `visitor_token_expired`, `visitor_token_revoked`'),
  403: problemResponse('`origin_not_allowed`: the page is not on an origin the account allows'),
  404: problemResponse('No active website with this token'),
  429: problemResponse('`rate_limited`: too many requests from this address or visitor; `Retry-After` says when to retry'),
};
const { 401: _unauthenticated, ...PUBLIC_ERRORS } = VISITOR_ERRORS;

/** The visitor API, under `/api/widget`; `publicBaseUrl` (PUBLIC_BASE_URL) names the service's own origin. */
export const widgetRoutes: FastifyPluginAsyncTypebox<{ service: WebChannelService; publicBaseUrl: string | undefined }> = async (
  app,
  { service, publicBaseUrl },
) => {
  /** Where the request comes from: its `Origin`, the service's own origins (its demo page), and its address. */
  const requestOrigin = (request: FastifyRequest): RequestOrigin => {
    const origin = request.headers.origin;
    const own = ownOrigins(publicBaseUrl, request.raw.socket);
    // A browser omits Origin on a same-origin GET: only a page of this service can be that.
    const sameOrigin = origin === undefined && request.headers['sec-fetch-site'] === 'same-origin';
    return { origin: sameOrigin ? own[0] : origin, ownOrigins: own, ip: request.ip };
  };
  const tags = ['widget'];
  const security: { bearer: string[] }[] = [];
  // CORS for the account's allowed origins only (the global CORS policy leaves /api/widget to this hook).
  app.addHook('onRequest', async (request, reply) => {
    const origin = request.headers.origin;
    const token = (request.params as { website_token?: string }).website_token;
    if (origin === undefined || token === undefined) return;
    const from = requestOrigin(request);
    try {
      service.checkOrigin(await service.accountOf(token), from);
    } catch {
      return; // no CORS headers: the browser refuses the answer; the handler refuses the request
    }
    void reply.header('access-control-allow-origin', origin).header('vary', 'Origin');
    if (request.method === 'OPTIONS') {
      void reply
        .header('access-control-allow-methods', 'GET, POST, OPTIONS')
        .header('access-control-allow-headers', 'authorization, content-type')
        .header('access-control-max-age', '600');
    } else void reply.header('access-control-expose-headers', 'Retry-After, x-request-id');
  });
  app.options('/:website_token/*', { config: { auth: 'none' }, schema: { hide: true } }, async (_request, reply) => reply.code(204).send());

  const visitor = (request: FastifyRequest) =>
    service.authenticate((request.params as { website_token: string }).website_token, bearerToken(request.headers.authorization), requestOrigin(request));

  app.get(
    '/:website_token/config',
    {
      config: { auth: 'none' },
      schema: {
        tags,
        security,
        summary: "The website chat's public settings",
        params: WidgetParams,
        response: { 200: WidgetConfigResponse, ...PUBLIC_ERRORS },
      },
    },
    async (request) => service.config(request.params.website_token, requestOrigin(request)),
  );
  app.post(
    '/:website_token/session',
    {
      config: { auth: 'none' },
      schema: {
        tags,
        security,
        summary: 'Start or resume a visitor session (a new visitor token each time; a resume revokes the token it replaces)',
        params: WidgetParams,
        body: StartSessionBody,
        response: {
          200: SessionResponse,
          ...PUBLIC_ERRORS,
          401: problemResponse('`invalid_identity_signature`, `identity_signature_expired`, `invalid_visitor_token`, `visitor_token_revoked`'),
          429: problemResponse(
            '`rate_limited`: too many requests from this address, or too many new visitors from its range or on this website; `Retry-After`',
          ),
        },
      },
    },
    async (request) => service.startSession(request.params.website_token, request.body, requestOrigin(request)),
  );
  app.post(
    '/:website_token/messages',
    {
      config: { auth: 'none' },
      schema: {
        tags,
        summary: "Send the visitor's message into the inbox",
        params: WidgetParams,
        body: SendBody,
        response: {
          202: SendResponse,
          ...VISITOR_ERRORS,
          429: problemResponse('`rate_limited`; `upload_limit_reached`: the attachment is past the visitor’s or the website’s daily budget'),
        },
      },
    },
    async (request, reply) => reply.code(202).send(await service.send(await visitor(request), request.body)),
  );
  app.get(
    '/:website_token/messages',
    {
      config: { auth: 'none' },
      schema: {
        tags,
        summary: "The visitor's conversation, newest first",
        params: WidgetParams,
        querystring: HistoryQuery,
        response: { 200: HistoryResponse, ...VISITOR_ERRORS },
      },
    },
    async (request) => service.history(await visitor(request), request.query, serviceOrigin(request)),
  );
  app.post(
    '/:website_token/uploads',
    {
      config: { auth: 'none' },
      schema: {
        tags,
        summary: 'Presign the upload of an image or document (the media limits per kind, the visitor budgets); send it with its ticket',
        params: WidgetParams,
        body: UploadBody,
        response: {
          200: UploadResponse,
          ...VISITOR_ERRORS,
          429: problemResponse('`rate_limited`; `upload_limit_reached`: too many unsent uploads, or past the visitor’s or the website’s daily budget'),
        },
      },
    },
    async (request) => service.upload(await visitor(request), request.body, serviceOrigin(request)),
  );
  app.post(
    '/:website_token/read',
    {
      config: { auth: 'none' },
      schema: {
        tags,
        summary: "The visitor read the agent's messages up to this one",
        params: WidgetParams,
        body: ReadBody,
        response: { 204: Type.Null(), ...VISITOR_ERRORS },
      },
    },
    async (request, reply) => {
      await service.seen(await visitor(request), 'read', request.body.message_id);
      return reply.code(204).send(null);
    },
  );
};
