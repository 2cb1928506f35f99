/**
 * Messages and conversations for the search module (issue 51): the hits of one search request, under the
 * inbox's visibility rule for the caller (conversation-visibility.ts).
 */
import type { Db } from '../../../db/client.js';
import type { SearchHit, SearchRequest } from '../../../platform/search/search-request.js';
import { viewerOf, type ViewerSource } from '../conversations/index.js';
import { searchConversations, searchMessages } from './message-search.repository.js';

export interface ConversationSearch {
  /** Up to `req.limit` hits of each of `types` the caller can see, each list in the search order (score desc, id desc). */
  search(caller: ViewerSource, req: SearchRequest, types: { messages: boolean; conversations: boolean }): Promise<SearchHit[]>;
}

export function createConversationSearch(deps: { db: Db }): ConversationSearch {
  return {
    async search(caller, req, types) {
      const viewer = viewerOf(caller);
      const [messages, conversations] = await Promise.all([
        types.messages ? searchMessages(deps.db, viewer, req) : [],
        types.conversations ? searchConversations(deps.db, viewer, req) : [],
      ]);
      return [...messages, ...conversations];
    },
  };
}
