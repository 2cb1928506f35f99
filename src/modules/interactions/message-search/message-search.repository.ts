/**
 * Search over messages and conversations (issue 51, docs/decisions.md "Search"). Messages match the
 * generated `search_vector` (GIN, `crm_spanish`: accents folded, Spanish stems); conversations match their
 * sender name and number through the inbox's trigram indexes. Both add the inbox's visibility condition
 * (`visibleTo`), so a restricted agent's hits, their count and their snippets only ever come from
 * conversations the agent can open.
 */
import { and, desc, eq, gte, inArray, lt, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../../db/client.js';
import {
  afterKeyset,
  MARK_END,
  MARK_START,
  phoneDigitsOf,
  substringPattern,
  type SearchHit,
  type SearchRequest,
} from '../../../platform/search/search-request.js';
import { conversation, message } from '../model/index.js';
import { visibleTo, type ConversationViewer } from '../conversations/index.js';

/** ts_headline's options: the matched words between the two control marks, in up to 30 words around the best match. */
const HEADLINE = `StartSel=${MARK_START}, StopSel=${MARK_END}, MaxWords=30, MinWords=12, ShortWord=2`;

function conversationFilters(req: SearchRequest): SQL[] {
  const f = req.filters;
  const out: SQL[] = [];
  if (f.channels !== undefined) out.push(inArray(conversation.channelTypeCode, f.channels as (typeof conversation.channelTypeCode._.data)[]));
  if (f.labelIds !== undefined) out.push(sql`${conversation.labelIds} && ${sql.param(f.labelIds)}::integer[]`);
  return out;
}

/**
 * The best `req.limit` messages matching `req.tsquery` that `viewer` can see, by score (ts_rank_cd over the
 * document's length, halved: [0, 0.5)) then id, after `req.after`; snippets only for those rows.
 */
export async function searchMessages(db: Db, viewer: ConversationViewer, req: SearchRequest): Promise<SearchHit[]> {
  if (req.tsquery === undefined) return [];
  const query = sql`to_tsquery('crm_spanish'::regconfig, ${req.tsquery})`;
  const score = sql`(ts_rank_cd(${message.searchVector}, ${query}, 34) * 0.5)::float8`;
  const f = req.filters;
  const rows = await db
    .select({
      id: message.id,
      conversationId: message.conversationId,
      direction: message.direction,
      occurredAt: message.occurredAt,
      channel: conversation.channelTypeCode,
      senderName: conversation.senderName,
      externalChatId: conversation.externalChatId,
      score: sql<number>`${score}`.as('score'),
    })
    .from(message)
    .innerJoin(conversation, and(eq(conversation.id, message.conversationId), eq(conversation.entityId, message.entityId)))
    .where(
      and(
        eq(message.entityId, req.entityId),
        sql`${message.searchVector} @@ ${query}`,
        f.from !== undefined ? eq(message.direction, f.from === 'customer' ? 'inbound' : 'outbound') : undefined,
        f.after !== undefined ? gte(message.occurredAt, f.after) : undefined,
        f.before !== undefined ? lt(message.occurredAt, f.before) : undefined,
        ...conversationFilters(req),
        visibleTo(viewer),
        afterKeyset(req.after, 'message', score, sql`${message.id}`),
      ),
    )
    .orderBy(desc(sql`score`), desc(message.id))
    .limit(req.limit);
  if (rows.length === 0) return [];
  // The headline is costly (it parses the text again): only for the page's rows, never for every match.
  const headlines = await db
    .select({
      id: message.id,
      snippet: sql<string>`ts_headline('crm_spanish'::regconfig, translate(coalesce(${message.text}, ''), ${MARK_START + MARK_END}, ''), ${query}, ${HEADLINE})`,
    })
    .from(message)
    .where(
      and(
        eq(message.entityId, req.entityId),
        inArray(
          message.id,
          rows.map((r) => r.id),
        ),
      ),
    );
  const snippetOf = new Map(headlines.map((h) => [h.id, h.snippet]));
  return rows.map((r) => ({
    type: 'message',
    id: r.id,
    score: Number(r.score),
    title: r.senderName ?? r.externalChatId,
    snippet: snippetOf.get(r.id) ?? '',
    conversationId: r.conversationId,
    messageId: r.id,
    channel: r.channel,
    direction: r.direction,
    occurredAt: r.occurredAt,
  }));
}

/**
 * Conversations whose sender name or number contains every term (a phone-like term also by its digits),
 * that `viewer` can see; score 0.5 + half the trigram word similarity of the query to the name or number.
 */
export async function searchConversations(db: Db, viewer: ConversationViewer, req: SearchRequest): Promise<SearchHit[]> {
  if (req.terms === undefined || req.filters.from !== undefined || req.filters.after !== undefined || req.filters.before !== undefined) return [];
  const matches = (t: string) => {
    const pattern = substringPattern(t);
    const digits = phoneDigitsOf(t);
    return sql`(${conversation.senderName} ilike ${pattern} or ${conversation.externalChatId} ilike ${pattern}${
      digits !== undefined ? sql` or ${conversation.externalChatId} like ${substringPattern(digits)}` : sql``
    })`;
  };
  const score = sql`(0.5 + 0.4999 * greatest(word_similarity(${req.full}, coalesce(${conversation.senderName}, '')), word_similarity(${req.full}, ${conversation.externalChatId})))::float8`;
  const rows = await db
    .select({
      id: conversation.id,
      senderName: conversation.senderName,
      externalChatId: conversation.externalChatId,
      channel: conversation.channelTypeCode,
      leadId: conversation.leadId,
      groupId: conversation.groupId,
      lastMessageAt: conversation.lastMessageAt,
      score: sql<number>`${score}`.as('score'),
    })
    .from(conversation)
    .where(
      and(
        eq(conversation.entityId, req.entityId),
        ...req.terms.map(matches),
        ...req.excluded.map((x) => sql`not coalesce(${conversation.senderName} ilike ${substringPattern(x)}, false)`),
        ...conversationFilters(req),
        visibleTo(viewer),
        afterKeyset(req.after, 'conversation', score, sql`${conversation.id}`),
      ),
    )
    .orderBy(desc(sql`score`), desc(conversation.id))
    .limit(req.limit);
  return rows.map((r) => ({
    type: 'conversation',
    id: r.id,
    score: Number(r.score),
    title: r.senderName ?? r.externalChatId,
    snippet: r.senderName ? `${r.senderName} · ${r.externalChatId}` : r.externalChatId,
    conversationId: r.id,
    leadId: r.leadId,
    groupId: r.groupId,
    channel: r.channel,
    occurredAt: r.lastMessageAt ?? undefined,
  }));
}
