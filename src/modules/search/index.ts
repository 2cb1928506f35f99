/**
 * Search (issue 51): `GET /search`, one ranked list of messages, conversations, contacts, leads and groups.
 * Owns no table: it parses the query and merges what interactions and records answer over theirs.
 */
import type { FastifyInstance } from 'fastify';
import { registerBareAndApi } from '../../platform/http/dual-prefix.js';
import type { ConversationSearch } from '../interactions/index.js';
import type { Labels } from '../labels/index.js';
import type { RecordSearch } from '../records/index.js';
import { searchRoutes } from './search.routes.js';
import { createSearchService } from './search.service.js';

/** Registers `/search` bare and under `/api`. */
export async function registerSearchModule(
  app: FastifyInstance,
  deps: { conversations: ConversationSearch; records: RecordSearch; labels: Labels },
): Promise<void> {
  await registerBareAndApi(app, searchRoutes, { service: createSearchService(deps) });
}
