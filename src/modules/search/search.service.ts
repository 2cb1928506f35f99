/**
 * Search (issue 51, docs/api/search.md): parses the query, asks the owners of the searchable tables for their
 * hits (interactions: messages and conversations, under the inbox's visibility; records: contacts, leads and
 * groups, under their list codes), merges them into one ranked list and pages it with a keyset cursor.
 * Errors: 400 with the query's code (`query_too_short`, `query_too_long`, `unbalanced_quotes`,
 * `no_search_terms`, `invalid_filter`) naming `/querystring/q`, 400 `invalid_cursor`.
 */
import type { Principal } from '../../platform/auth/authenticator.js';
import { badRequest } from '../../platform/errors.js';
import { SEARCH_TYPES, type SearchHit, type SearchKeyset, type SearchRequest, type SearchType } from '../../platform/search/search-request.js';
import type { ConversationSearch } from '../interactions/index.js';
import type { Labels } from '../labels/index.js';
import type { RecordSearch } from '../records/index.js';
import { parseSearchQuery, QueryProblem, substringTerms, tsqueryText, type ParsedQuery } from './search-query.js';
import type { SearchQuery, SearchResponse, SearchResult } from './search.schemas.js';
import { markTerms, snippetHtml } from './snippet.js';

export interface SearchService {
  search(p: Principal, q: SearchQuery): Promise<SearchResponse>;
}

function encodeCursor(k: SearchKeyset): string {
  return Buffer.from(JSON.stringify([k.score, k.type, k.id])).toString('base64url');
}

function decodeCursor(cursor: string | undefined): SearchKeyset | undefined {
  if (cursor === undefined) return undefined;
  try {
    const v: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString());
    if (Array.isArray(v) && v.length === 3) {
      const [score, type, id] = v as [unknown, unknown, unknown];
      if (typeof score === 'number' && Number.isFinite(score) && SEARCH_TYPES.includes(type as SearchType) && Number.isSafeInteger(id)) {
        return { score, type: type as SearchType, id: id as number };
      }
    }
  } catch {
    // Not JSON: refused below like any other foreign cursor.
  }
  throw badRequest('invalid_cursor', 'The cursor is not valid');
}

const queryRefused = (code: string, message: string) => badRequest(code, message, { errors: [{ field: '/querystring/q', message }] });

/** The search order: score desc, then type (SEARCH_TYPES order), then id desc. */
function compare(a: SearchHit, b: SearchHit): number {
  return b.score - a.score || SEARCH_TYPES.indexOf(a.type) - SEARCH_TYPES.indexOf(b.type) || b.id - a.id;
}

function toResult(hit: SearchHit, terms: readonly string[]): SearchResult {
  return {
    type: hit.type,
    id: hit.id,
    score: hit.score,
    title: hit.title,
    snippet_html: snippetHtml(hit.type === 'message' ? hit.snippet : markTerms(hit.snippet, terms)),
    conversation_id: hit.conversationId ?? null,
    message_id: hit.messageId ?? null,
    lead_id: hit.leadId ?? null,
    group_id: hit.groupId ?? null,
    channel: hit.channel ?? null,
    direction: hit.direction ?? null,
    occurred_at: hit.occurredAt?.toISOString() ?? null,
  };
}

export function createSearchService(deps: { conversations: ConversationSearch; records: RecordSearch; labels: Labels }): SearchService {
  /** The label filter's names or ids as the entity's label ids; 400 naming the first unknown one. */
  async function labelIdsOf(p: Principal, wanted: string[] | undefined): Promise<number[] | undefined> {
    if (wanted === undefined) return undefined;
    const { data } = await deps.labels.list(p);
    return wanted.map((w) => {
      const found = data.find((l) => String(l.id) === w || l.name.toLowerCase() === w.toLowerCase());
      if (!found) throw queryRefused('invalid_filter', `label: ${w} is not a label of the entity`);
      return found.id;
    });
  }

  return {
    async search(p, q) {
      let parsed: ParsedQuery;
      try {
        parsed = parseSearchQuery(q.q);
      } catch (err) {
        if (err instanceof QueryProblem) throw queryRefused(err.code, err.message);
        throw err;
      }
      const after = decodeCursor(q.cursor);
      const types = new Set<SearchType>(q.types === undefined ? SEARCH_TYPES : (q.types.split(',') as SearchType[]));
      const f = parsed.filters;
      // Records carry no channel, sender, date or conversation label: a filter on those leaves only messages and conversations.
      const recordsApply = f.channels === undefined && f.from === undefined && f.after === undefined && f.before === undefined && f.labels === undefined;
      const terms = substringTerms(parsed);
      const req: SearchRequest = {
        entityId: p.entityId,
        tsquery: tsqueryText(parsed),
        terms,
        excluded: parsed.excluded,
        full: [...parsed.words, ...parsed.phrases].join(' '),
        filters: { channels: f.channels, from: f.from, after: f.after, before: f.before, labelIds: await labelIdsOf(p, f.labels) },
        after,
        limit: q.limit + 1,
      };
      const [conversations, records] = await Promise.all([
        deps.conversations.search(p, req, { messages: types.has('message'), conversations: types.has('conversation') }),
        recordsApply ? deps.records.search(p, req, { contacts: types.has('contact'), leads: types.has('lead'), groups: types.has('group') }) : [],
      ]);
      const hits = [...conversations, ...records].sort(compare);
      const page = hits.slice(0, q.limit);
      const last = page.at(-1);
      const highlight = [...parsed.words, ...parsed.phrases];
      return {
        data: page.map((h) => toResult(h, highlight)),
        pagination: { limit: q.limit, next_cursor: hits.length > q.limit && last ? encodeCursor({ score: last.score, type: last.type, id: last.id }) : null },
      };
    },
  };
}
