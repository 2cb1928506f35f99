import { Type, type Static } from 'typebox';
import { NullableString } from '../../platform/http/schema-types.js';

const NullableInteger = (description: string) => Type.Union([Type.Integer(), Type.Null()], { description });

export const SearchQuery = Type.Object({
  // The parser checks 2..500 characters with its own codes; the schema only bounds what is read at all.
  q: Type.String({ maxLength: 2000, description: 'The query (docs/api/search.md "Syntax"): 2 to 500 characters' }),
  types: Type.Optional(
    Type.String({
      maxLength: 100,
      pattern: '^(message|contact|lead|group|conversation)(,(message|contact|lead|group|conversation))*$',
      description: 'Comma-separated kinds of result (default all): message, contact, lead, group, conversation',
    }),
  ),
  limit: Type.Integer({ minimum: 1, maximum: 50, default: 20, description: 'Page size (max 50)' }),
  cursor: Type.Optional(Type.String({ maxLength: 200, description: "The previous page's `pagination.next_cursor`" })),
});
export type SearchQuery = Static<typeof SearchQuery>;

export const SearchResult = Type.Object({
  type: Type.Union([Type.Literal('message'), Type.Literal('contact'), Type.Literal('lead'), Type.Literal('group'), Type.Literal('conversation')]),
  id: Type.Integer(),
  score: Type.Number({ description: 'Rank in [0, 1): records and conversations in [0.5, 1), messages below (docs/api/search.md "Ranking")' }),
  title: Type.String({ description: "Plain text: the record's name, or the conversation's sender name or number" }),
  snippet_html: Type.String({ description: 'HTML-escaped text with the matched parts in <mark>…</mark>' }),
  conversation_id: NullableInteger("A message's or conversation's: open it with GET /interactions/conversations/{id}/history?around={message_id}"),
  message_id: NullableInteger("A message's id, for `around` of the history"),
  lead_id: NullableInteger('The lead of a contact, lead or conversation'),
  group_id: NullableInteger('The group of a contact, lead, group or conversation'),
  channel: NullableString({ description: "The channel type code of a message's or conversation's conversation" }),
  direction: Type.Union([Type.Literal('inbound'), Type.Literal('outbound'), Type.Null()], { description: "A message's: inbound is the customer's" }),
  occurred_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: "A message's time, a conversation's last activity" }),
});
export type SearchResult = Static<typeof SearchResult>;

export const SearchResponse = Type.Object({
  data: Type.Array(SearchResult),
  pagination: Type.Object({ limit: Type.Integer(), next_cursor: Type.Union([Type.String(), Type.Null()]) }),
});
export type SearchResponse = Static<typeof SearchResponse>;
