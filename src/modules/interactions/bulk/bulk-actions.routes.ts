import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../../platform/auth/guard.js';
import { problemResponse } from '../../../platform/http/openapi.js';
import { BulkActionBody, BulkActionResponse } from './bulk-actions.schemas.js';
import type { BulkActions } from './bulk-actions.service.js';

/** `POST /interactions/conversations/bulk` (served bare and under /api). */
export const bulkActionRoutes: FastifyPluginAsyncTypebox<{ bulk: BulkActions }> = async (app, { bulk }) => {
  app.post(
    '/interactions/conversations/bulk',
    {
      config: { auth: 'jwt' },
      schema: {
        tags: ['interactions'],
        summary: 'Apply one action to up to 500 conversations; each item is checked as if it were alone and has its own result',
        body: BulkActionBody,
        response: {
          200: BulkActionResponse,
          403: problemResponse('`permission_denied`: `assign` and `unassign` need `cartera.seller_assignment`'),
        },
      },
    },
    async (request) => bulk.apply(principalOf(request), request.body),
  );
};
