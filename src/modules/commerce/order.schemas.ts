/** Orders API shapes (docs/api/commerce.md). */
import { Type, type Static } from 'typebox';
import { IdOf } from '../../platform/http/ids.js';
import { Pagination, pageQuery } from '../../platform/http/pagination.js';
import { StringEnum } from '../../platform/http/schema-types.js';
import { ERP_PUSH_STATUSES } from './commerce.table.js';
import { AmountsResponse, Currency, LineResponse, LinesInput, SellerField } from './document.schemas.js';

const strict = { additionalProperties: false } as const;

const OrderFromQuoteBody = Type.Object({ quote_id: IdOf('An approved quote; its lines, currency and parties are copied') }, strict);
const DirectOrderBody = Type.Object(
  {
    lead_id: IdOf('Lead (or client) ordering'),
    contact_id: Type.Optional(IdOf('Contact of the lead')),
    seller_employee_id: SellerField,
    currency: Currency,
    notes: Type.Optional(Type.String({ maxLength: 4000 })),
    lines: LinesInput,
  },
  strict,
);
export const OrderCreateBody = Type.Union([OrderFromQuoteBody, DirectOrderBody]);
export type OrderCreateBody = Static<typeof OrderCreateBody>;

export const OrderResponse = Type.Object({
  id: Type.Integer(),
  quote_id: Type.Union([Type.Integer(), Type.Null()]),
  lead_id: Type.Integer(),
  contact_id: Type.Union([Type.Integer(), Type.Null()]),
  seller_employee_id: Type.Integer(),
  notes: Type.String(),
  ...AmountsResponse,
  lines: Type.Array(LineResponse),
  erp: Type.Object({
    push_status: StringEnum(ERP_PUSH_STATUSES),
    order_number: Type.Union([Type.String(), Type.Null()]),
    status: Type.Union([Type.String(), Type.Null()]),
    error: Type.Unknown(),
    pushed_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  }),
  created_at: Type.String({ format: 'date-time' }),
});
export type OrderResponse = Static<typeof OrderResponse>;

export const OrderListQuery = Type.Object({ ...pageQuery(50), lead_id: Type.Optional(IdOf('Lead')) });
export type OrderListQuery = Static<typeof OrderListQuery>;
export const OrderListResponse = Type.Object({ data: Type.Array(OrderResponse), pagination: Pagination });
