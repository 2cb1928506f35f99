import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../platform/auth/guard.js';
import { problemResponse } from '../../platform/http/openapi.js';
import { SearchQuery, SearchResponse } from './search.schemas.js';
import type { SearchService } from './search.service.js';

/** `GET /search` (served bare and under /api): every member searches what their lists show them. */
export const searchRoutes: FastifyPluginAsyncTypebox<{ service: SearchService }> = async (app, { service }) => {
  app.get(
    '/search',
    {
      config: { auth: 'jwt' as const },
      schema: {
        tags: ['search'],
        summary: 'Search messages, conversations, contacts, leads and groups: one ranked list',
        querystring: SearchQuery,
        response: {
          200: SearchResponse,
          400: problemResponse(
            '`query_too_short`, `query_too_long`, `unbalanced_quotes`, `no_search_terms`, `invalid_filter` (errors name `/querystring/q`), `invalid_cursor`, `validation_failed`',
          ),
        },
      },
    },
    async (request) => service.search(principalOf(request), request.query),
  );
};
