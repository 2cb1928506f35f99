/**
 * What the search module hands the owners of searchable tables (interactions for messages and conversations,
 * records for contacts, leads and groups; issue 51), and what they answer. The owners run the SQL over their own
 * tables; the search module parses the query, merges their hits and pages them. Types only, plus the keyset
 * rule every owner applies the same way.
 */
import { sql, type SQL } from 'drizzle-orm';

/** The kinds of result, in the order ties of score are broken (then id, newest first). */
export const SEARCH_TYPES = ['contact', 'conversation', 'group', 'lead', 'message'] as const;
export type SearchType = (typeof SEARCH_TYPES)[number];

/** Where the previous page ended: its last hit's score, type and id. */
export interface SearchKeyset {
  score: number;
  type: SearchType;
  id: number;
}

export interface SearchRequest {
  entityId: number;
  /** `to_tsquery` text over `crm_spanish`, built only of quoted letter/digit runs (messages); undefined: no message search. */
  tsquery?: string | undefined;
  /** Substrings every record matches (lower-cased; folded in SQL), each as a substring of its text or, phone-like, of its digits. */
  terms?: string[] | undefined;
  /** Substrings no record contains. */
  excluded: string[];
  /** The positive terms joined by spaces: what record scores are measured against. */
  full: string;
  filters: {
    channels?: string[] | undefined;
    from?: 'customer' | 'agent' | undefined;
    after?: Date | undefined;
    before?: Date | undefined;
    labelIds?: number[] | undefined;
  };
  after?: SearchKeyset | undefined;
  /** At most this many hits per type (the page size plus one). */
  limit: number;
}

/** One result as an owner answers it; the snippet is plain text with \u0001 / \u0002 around the matched parts. */
export interface SearchHit {
  type: SearchType;
  id: number;
  /** In [0, 1): records and conversations in [0.5, 1), messages in [0, 0.5) (docs/api/search.md "Ranking"). */
  score: number;
  title: string;
  snippet: string;
  conversationId?: number | undefined;
  messageId?: number | undefined;
  leadId?: number | undefined;
  groupId?: number | undefined;
  channel?: string | undefined;
  direction?: 'inbound' | 'outbound' | undefined;
  occurredAt?: Date | undefined;
}

/** Marks the matched parts of snippets before HTML escaping (the search module turns them into `<mark>`). */
export const MARK_START = '\u0001';
export const MARK_END = '\u0002';

/**
 * The keyset condition for hits of `type` after `after` in the order (score desc, type asc, id desc): `score`
 * and `id` are the owner's SQL for them. Undefined on the first page.
 */
export function afterKeyset(after: SearchKeyset | undefined, type: SearchType, score: SQL, id: SQL): SQL | undefined {
  if (after === undefined) return undefined;
  const mine = SEARCH_TYPES.indexOf(type);
  const theirs = SEARCH_TYPES.indexOf(after.type);
  if (mine < theirs) return sql`${score} < ${after.score}::float8`;
  if (mine > theirs) return sql`${score} <= ${after.score}::float8`;
  return sql`(${score} < ${after.score}::float8 or (${score} = ${after.score}::float8 and ${id} < ${after.id}))`;
}

/** `%text%` for LIKE with its wildcards escaped. */
export function substringPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Digits of a phone-like term (4 or more, only phone punctuation around them), else undefined. */
export function phoneDigitsOf(term: string): string | undefined {
  if (!/^\+?[\d\s().-]+$/.test(term)) return undefined;
  const digits = term.replace(/\D/g, '');
  return digits.length >= 4 ? digits : undefined;
}
