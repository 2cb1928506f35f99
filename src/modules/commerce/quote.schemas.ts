/** Quotes API shapes (docs/api/commerce.md). */
import { Type, type Static } from 'typebox';
import { IdOf } from '../../platform/http/ids.js';
import { Pagination, pageQuery } from '../../platform/http/pagination.js';
import { StringEnum } from '../../platform/http/schema-types.js';
import { QUOTE_STATUSES } from './commerce.table.js';
import { AmountsResponse, Currency, LineResponse, LinesInput, SellerField } from './document.schemas.js';

const strict = { additionalProperties: false } as const;
const DateOnly = Type.String({ format: 'date', description: 'YYYY-MM-DD' });

export const QuoteCreateBody = Type.Object(
  {
    lead_id: IdOf('Lead (or client) quoted'),
    contact_id: Type.Optional(IdOf('Contact of the lead the quote is for')),
    seller_employee_id: SellerField,
    currency: Currency,
    valid_until: DateOnly,
    notes: Type.Optional(Type.String({ maxLength: 4000 })),
    lines: LinesInput,
  },
  strict,
);
export type QuoteCreateBody = Static<typeof QuoteCreateBody>;

export const QuoteUpdateBody = Type.Object(
  {
    contact_id: Type.Optional(Type.Union([IdOf('Contact'), Type.Null()])),
    seller_employee_id: SellerField,
    valid_until: Type.Optional(DateOnly),
    notes: Type.Optional(Type.String({ maxLength: 4000 })),
    lines: Type.Optional(LinesInput),
  },
  { ...strict, description: 'Drafts only (409 quote_not_editable otherwise); lines are replaced as a whole' },
);
export type QuoteUpdateBody = Static<typeof QuoteUpdateBody>;

export const QuoteResponse = Type.Object({
  id: Type.Integer(),
  lead_id: Type.Integer(),
  contact_id: Type.Union([Type.Integer(), Type.Null()]),
  seller_employee_id: Type.Integer(),
  status: StringEnum(QUOTE_STATUSES),
  valid_until: Type.String(),
  notes: Type.String(),
  ...AmountsResponse,
  lines: Type.Array(LineResponse),
  order_id: Type.Union([Type.Integer(), Type.Null()], { description: 'The order created from this quote' }),
  sent_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  decided_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});
export type QuoteResponse = Static<typeof QuoteResponse>;

export const QuoteListQuery = Type.Object({ ...pageQuery(50), lead_id: Type.Optional(IdOf('Lead')), status: Type.Optional(StringEnum(QUOTE_STATUSES)) });
export type QuoteListQuery = Static<typeof QuoteListQuery>;
export const QuoteListResponse = Type.Object({ data: Type.Array(QuoteResponse), pagination: Pagination });
