import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf } from '../../../platform/auth/guard.js';
import { NullableString } from '../../../platform/http/schema-types.js';
import { problemResponse } from '../../../platform/http/openapi.js';
import type { CommunicationsOperations, OperatorCommands } from './communications-operations.service.js';
import { operatorRoute } from './privileged-operator.js';

const Secret = Type.Object({ configured: Type.Boolean(), last4: NullableString() });
const ConfigResponse = Type.Object({
  communications_entity_id: NullableString(),
  external_app_id: NullableString(),
  base_url: NullableString(),
  api_key: Secret,
  meta_access_token: Secret,
  fallback: Type.Object({ base_url: Type.Boolean(), api_key: Type.Boolean() }),
});
const ConfigBody = Type.Object(
  {
    communications_entity_id: Type.Optional(NullableString({ minLength: 1, maxLength: 200 })),
    external_app_id: Type.Optional(NullableString({ minLength: 1, maxLength: 200 })),
    base_url: Type.Optional(NullableString({ format: 'uri', pattern: '^https?://', maxLength: 2000 })),
    api_key: Type.Optional(NullableString({ minLength: 8, maxLength: 2000 })),
    meta_access_token: Type.Optional(NullableString({ minLength: 8, maxLength: 4000 })),
  },
  { additionalProperties: false },
);
const UNAVAILABLE = problemResponse('`communications_unavailable`, `communications_not_configured`, `webhook_url_unavailable`');
const FORBIDDEN = problemResponse(
  "`permission_denied` (communications.command_palette.view), or `not_privileged_operator`: the caller's e-mail is not in COMMUNICATIONS_PRIVILEGED_OPERATOR_EMAILS",
);

/**
 * `/interactions/communications/*` (served bare and under /api): privileged operators only
 * (`communications.command_palette.view` and e-mail in COMMUNICATIONS_PRIVILEGED_OPERATOR_EMAILS, both
 * checked by the guard before validation), on the caller's active entity.
 */
export const communicationsOperationsRoutes: FastifyPluginAsyncTypebox<{
  operations: CommunicationsOperations;
  commands: OperatorCommands;
  privilegedEmails: string[];
}> = async (app, { operations, commands, privilegedEmails }) => {
  const tags = ['interactions'];
  const operatorOnly = operatorRoute(privilegedEmails);
  const operator = (request: Parameters<typeof principalOf>[0]) => principalOf(request).entityId;
  app.get(
    '/interactions/communications/config',
    {
      config: operatorOnly,
      schema: { tags, summary: "The entity's communications config (secrets masked)", response: { 200: ConfigResponse, 403: FORBIDDEN } },
    },
    async (request) => operations.readConfig(operator(request)),
  );
  app.put(
    '/interactions/communications/config',
    {
      config: operatorOnly,
      schema: {
        tags,
        summary: "Set the entity's communications config (null clears a field)",
        body: ConfigBody,
        response: {
          200: ConfigResponse,
          403: FORBIDDEN,
          422: problemResponse(
            '`base_url_not_allowed`: the base URL names a private or loopback address not allowed, carries credentials, or is not https in production',
          ),
        },
      },
    },
    async (request) => commands.setConfig(principalOf(request), request.body),
  );
  app.post(
    '/interactions/communications/webhook-sync',
    {
      config: operatorOnly,
      schema: {
        tags,
        summary: 'Register our webhook URL with the communications service',
        response: { 200: Type.Object({ url: Type.String() }), 403: FORBIDDEN, 422: UNAVAILABLE },
      },
    },
    async (request) => commands.syncWebhook(principalOf(request)),
  );
  app.post(
    '/interactions/communications/meta-token-rotate',
    {
      config: operatorOnly,
      schema: {
        tags,
        summary: 'Rotate the channel platform token',
        body: Type.Object({ access_token: Type.String({ minLength: 8, maxLength: 4000 }) }, { additionalProperties: false }),
        response: { 200: ConfigResponse, 403: FORBIDDEN, 422: UNAVAILABLE },
      },
    },
    async (request) => commands.rotateMetaToken(principalOf(request), request.body.access_token),
  );
  app.post(
    '/interactions/communications/manual-login',
    {
      config: operatorOnly,
      schema: {
        tags,
        summary: 'Log in to the communications service',
        response: { 200: Type.Object({ communications_entity_id: NullableString() }), 403: FORBIDDEN, 422: UNAVAILABLE },
      },
    },
    async (request) => commands.login(principalOf(request)),
  );
};
