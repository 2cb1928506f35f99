/**
 * The search query language (issue 51, docs/api/search.md "Syntax"), parsed without any I/O:
 * words (all must match, the last also as a prefix), `"exact phrase"`, `-excluded` (a word or a phrase) and
 * the filters `channel:`, `from:customer|agent`, `after:` / `before:` (YYYY-MM-DD, the entity's day is not
 * used: UTC), `label:` (a label's name or id, quoted when it has spaces). Anything else with a colon is a word.
 * Every refusal is a `QueryProblem` naming what is wrong; the routes answer it as 400 on `/querystring/q`.
 */
import { phoneDigitsOf } from '../../platform/search/search-request.js';

/** The channel filter's values: the channel type codes, and the names people say. */
const CHANNEL_ALIASES: Readonly<Record<string, readonly string[]>> = {
  whatsapp: ['chatapp_api', 'chatapp_business'],
  messenger: ['social_messenger'],
  instagram: ['social_dm'],
  web: ['web'],
  chatapp_api: ['chatapp_api'],
  chatapp_business: ['chatapp_business'],
  social_messenger: ['social_messenger'],
  social_dm: ['social_dm'],
};

const MIN_QUERY_LENGTH = 2;
const MAX_QUERY_LENGTH = 500;

export interface ParsedQuery {
  /** Words every result contains (lower-cased, as typed otherwise); the last also matches as a prefix when `prefixLast`. */
  words: string[];
  /** Whether the query ended on a bare word (not a phrase, nor a space): that word is matched as a prefix. */
  prefixLast: boolean;
  /** Exact phrases (their words in order, adjacent). */
  phrases: string[];
  /** Words and phrases no result contains. */
  excluded: string[];
  filters: {
    /** Channel type codes (any of). */
    channels?: string[];
    from?: 'customer' | 'agent';
    /** Inclusive lower bound, UTC midnight of the day. */
    after?: Date;
    /** Exclusive upper bound: UTC midnight of the day after `before:`. */
    before?: Date;
    /** Label names or ids as typed (any of); the search service resolves them. */
    labels?: string[];
  };
}

/** Why a query was refused: `code` is stable, `message` says it to a person. */
export class QueryProblem extends Error {
  constructor(
    readonly code: 'query_too_short' | 'query_too_long' | 'unbalanced_quotes' | 'no_search_terms' | 'invalid_filter',
    message: string,
  ) {
    super(message);
  }
}

const FILTERS = new Set(['channel', 'from', 'after', 'before', 'label']);

interface Token {
  text: string;
  quoted: boolean;
  negated: boolean;
  key?: string;
}

/** Splits into tokens: bare runs, `"quoted"` runs (with an optional `-` or `key:` before the quote). */
function tokens(q: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < q.length) {
    while (i < q.length && /\s/.test(q[i]!)) i++;
    if (i >= q.length) break;
    let negated = false;
    if (q[i] === '-' && i + 1 < q.length && !/\s/.test(q[i + 1]!)) {
      negated = true;
      i++;
    }
    let key: string | undefined;
    const keyMatch = /^([a-z]+):/i.exec(q.slice(i));
    if (keyMatch && FILTERS.has(keyMatch[1]!.toLowerCase()) && !negated) {
      key = keyMatch[1]!.toLowerCase();
      i += keyMatch[0].length;
    }
    if (q[i] === '"') {
      const end = q.indexOf('"', i + 1);
      if (end < 0) throw new QueryProblem('unbalanced_quotes', 'A quote is not closed');
      out.push({ text: q.slice(i + 1, end), quoted: true, negated, ...(key ? { key } : {}) });
      i = end + 1;
      continue;
    }
    const start = i;
    while (i < q.length && !/\s/.test(q[i]!)) {
      if (q[i] === '"') throw new QueryProblem('unbalanced_quotes', 'A quote starts inside a word');
      i++;
    }
    out.push({ text: q.slice(start, i), quoted: false, negated, ...(key ? { key } : {}) });
  }
  return out;
}

const PHONE_PART = /^[+(]?[\d().-]+$/;

/** Adjacent bare tokens that together write one phone number ('+502 5555-1234', '(502) 5555 1234') become one word. */
function phonesJoined(list: Token[]): Token[] {
  const out: Token[] = [];
  for (const t of list) {
    const prev = out.at(-1);
    const bare = (x: Token) => !x.quoted && !x.negated && x.key === undefined && PHONE_PART.test(x.text) && /\d/.test(x.text);
    if (prev && bare(prev) && bare(t)) prev.text = `${prev.text} ${t.text}`;
    else out.push({ ...t });
  }
  return out;
}

/** YYYY-MM-DD as UTC midnight, or undefined when it is not a real date. */
function dateOf(value: string): Date | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return undefined;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]) ? d : undefined;
}

/** Whether `text` has something a search can match: a letter or a digit. */
const searchable = (text: string) => /[\p{L}\p{N}]/u.test(text);

/**
 * Parses `q`. Throws `QueryProblem` for a query under 2 or over 500 characters (after trimming), an unclosed
 * quote, a filter with a bad value, or a query with nothing to look for (only filters or exclusions): a search
 * always has a positive term, so it never reads an entity's whole history.
 */
export function parseSearchQuery(raw: string): ParsedQuery {
  const q = raw.trim();
  if (q.length < MIN_QUERY_LENGTH) throw new QueryProblem('query_too_short', `The query needs at least ${MIN_QUERY_LENGTH} characters`);
  if (q.length > MAX_QUERY_LENGTH) throw new QueryProblem('query_too_long', `The query may have at most ${MAX_QUERY_LENGTH} characters`);
  const parsed: ParsedQuery = { words: [], prefixLast: false, phrases: [], excluded: [], filters: {} };
  const list = phonesJoined(tokens(q));
  for (const t of list) {
    if (t.key !== undefined) {
      addFilter(parsed, t.key, t.text.trim());
      continue;
    }
    if (!searchable(t.text)) continue;
    const text = t.text.trim().replace(/\s+/g, ' ').toLowerCase();
    if (t.negated) parsed.excluded.push(text);
    else if (t.quoted) parsed.phrases.push(text);
    else parsed.words.push(text);
  }
  if (parsed.words.length === 0 && parsed.phrases.length === 0) {
    throw new QueryProblem('no_search_terms', 'The query needs a word or a phrase to look for, not only filters or exclusions');
  }
  const last = list.at(-1);
  parsed.prefixLast = last !== undefined && !last.quoted && !last.negated && last.key === undefined && searchable(last.text) && !/\s$/.test(raw);
  return parsed;
}

function addFilter(parsed: ParsedQuery, key: string, value: string): void {
  const f = parsed.filters;
  if (value === '') throw new QueryProblem('invalid_filter', `${key}: needs a value`);
  switch (key) {
    case 'channel': {
      const codes = CHANNEL_ALIASES[value.toLowerCase()];
      if (!codes) throw new QueryProblem('invalid_filter', `channel: is one of ${Object.keys(CHANNEL_ALIASES).join(', ')}`);
      f.channels = [...new Set([...(f.channels ?? []), ...codes])];
      return;
    }
    case 'from': {
      const v = value.toLowerCase();
      if (v !== 'customer' && v !== 'agent') throw new QueryProblem('invalid_filter', 'from: is customer or agent');
      if (f.from !== undefined && f.from !== v) throw new QueryProblem('invalid_filter', 'from: is given twice with different values');
      f.from = v;
      return;
    }
    case 'after':
    case 'before': {
      const day = dateOf(value);
      if (!day) throw new QueryProblem('invalid_filter', `${key}: is a date, YYYY-MM-DD`);
      if (key === 'after') f.after = day;
      else f.before = new Date(day.getTime() + 86_400_000);
      if (f.after && f.before && f.after >= f.before) throw new QueryProblem('invalid_filter', 'after: is later than before:');
      return;
    }
    default:
      f.labels = [...(f.labels ?? []), value];
  }
}

/** Letters and digits runs of `text`: what a full-text lexeme may hold (anything else separates words). */
function lexemes(text: string): string[] {
  return text.match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * The query as `to_tsquery` text: every word ANDed (the last with `:*` when `prefixLast`), each phrase as
 * `<->` chains, each exclusion negated. Only letter and digit runs reach it, each single-quoted, so no input
 * can inject tsquery syntax. Undefined when nothing full-text remains.
 */
export function tsqueryText(parsed: ParsedQuery): string | undefined {
  const parts: string[] = [];
  const quote = (l: string) => `'${l}'`;
  parsed.words.forEach((w, index) => {
    const ls = lexemes(w);
    if (ls.length === 0) return;
    const prefix = parsed.prefixLast && index === parsed.words.length - 1;
    const chain = ls.map((l, i) => (prefix && i === ls.length - 1 ? `${quote(l)}:*` : quote(l)));
    parts.push(chain.length > 1 ? `(${chain.join(' <-> ')})` : chain[0]!);
  });
  for (const p of parsed.phrases) {
    const ls = lexemes(p);
    if (ls.length > 0) parts.push(`(${ls.map(quote).join(' <-> ')})`);
  }
  if (parts.length === 0) return undefined;
  for (const x of parsed.excluded) {
    const ls = lexemes(x);
    if (ls.length > 0) parts.push(`!(${ls.map(quote).join(' <-> ')})`);
  }
  return parts.join(' & ');
}

/**
 * The terms the records' substring search matches (words and phrases, as typed, lower-cased), or undefined
 * when none has 3 characters or more: shorter text cannot use a trigram index, so such a query skips the
 * records rather than read all of them.
 */
export function substringTerms(parsed: ParsedQuery): string[] | undefined {
  const terms = [...parsed.words, ...parsed.phrases];
  return terms.some((t) => t.length >= 3 || phoneDigitsOf(t) !== undefined) ? terms : undefined;
}
