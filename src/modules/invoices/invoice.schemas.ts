import { Type, type Static } from 'typebox';
import { Id, IdParams } from '../../platform/http/ids.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const GroupParams = IdParams;
export const InvoiceParams = Type.Object({ id: Id, invoiceId: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }) });
export const InvoicePageQuery = Type.Object({
  page: Type.Integer({ minimum: 1, maximum: 10_000, default: 1, description: 'n-th most recent day with invoices (1 = latest)' }),
});

export const InvoiceSummary = Type.Object({
  id: Type.String(),
  number: Type.String(),
  date: Type.String({ description: 'YYYY-MM-DD' }),
  issuedAt: Type.String(),
  clientErpId: Type.String(),
  clientName: Type.String(),
  leadId: Nullable(Type.Integer()),
  currencyCode: Type.String(),
  total: Type.Number(),
  status: Type.String(),
  lineCount: Type.Integer(),
});
export type InvoiceSummary = Static<typeof InvoiceSummary>;

export const InvoiceListResponse = Type.Object({
  data: Type.Array(InvoiceSummary),
  pagination: Type.Object({
    mode: Type.Literal('day'),
    page: Type.Integer(),
    totalPages: Type.Integer({ description: 'Days with invoices' }),
    hasNext: Type.Boolean(),
    nextPage: Nullable(Type.Integer()),
    previousPage: Nullable(Type.Integer()),
  }),
  day: Nullable(
    Type.Object({ date: Type.String(), invoiceCount: Type.Integer(), totals: Type.Array(Type.Object({ currencyCode: Type.String(), total: Type.Number() })) }),
  ),
  settings: Type.Object({
    clientCount: Type.Integer({ description: 'Clients (leads with an ERP id) of the group' }),
    timeZone: Type.String(),
    detailPath: Type.String(),
  }),
  emptyState: Nullable(
    Type.Object({
      reason: Type.Union([Type.Literal('no_clients'), Type.Literal('no_invoices'), Type.Literal('page_out_of_range')]),
      message: Type.String(),
    }),
  ),
});
export type InvoiceListResponse = Static<typeof InvoiceListResponse>;

const RawProduct = Type.Object({ id: Type.String(), code: Type.String(), name: Type.String(), productType: Type.String() });
const RawBundle = Type.Object({ id: Type.String(), code: Type.String(), name: Type.String() });
const RawSerial = Type.Object({ id: Type.String(), number: Type.String() });
const RawLot = Type.Object({ id: Type.String(), name: Type.String(), expirationDate: Nullable(Type.String()) });

/** What the ERP sends for a line: amounts and the raw references, kept as-is in the response. */
const rawLineProperties = {
  quantity: Type.Number(),
  unitPrice: Type.Number(),
  total: Type.Number(),
  item: Nullable(RawProduct),
  bundle: Nullable(RawBundle),
  serial: Nullable(RawSerial),
  lot: Nullable(RawLot),
  serialId: Nullable(Type.String()),
  lotId: Nullable(Type.String()),
};

export const InvoiceLine = Type.Object({
  id: Type.String(),
  lineKind: Type.Union([Type.Literal('item'), Type.Literal('bundle'), Type.Literal('serial'), Type.Literal('lot')]),
  code: Nullable(Type.String()),
  name: Nullable(Type.String()),
  productType: Nullable(Type.String()),
  trackingName: Nullable(Type.String()),
  expirationDate: Nullable(Type.String()),
  expirationLabel: Nullable(Type.String()),
  ...rawLineProperties,
});
export type InvoiceLine = Static<typeof InvoiceLine>;

const InvoiceDetail = Type.Object({ ...InvoiceSummary.properties, lines: Type.Array(InvoiceLine) });
type InvoiceDetail = Static<typeof InvoiceDetail>;
export const InvoiceDetailResponse = Type.Object({ data: InvoiceDetail });
export type InvoiceDetailResponse = Static<typeof InvoiceDetailResponse>;

/** GraphQL shapes (validated before use). */
const GqlLine = Type.Object({ id: Type.String(), ...rawLineProperties });
export type GqlLine = Static<typeof GqlLine>;
const GqlInvoiceBase = {
  id: Type.String(),
  number: Type.String(),
  date: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' }),
  issuedAt: Type.String(),
  clientId: Type.String(),
  clientName: Type.String(),
  currencyCode: Type.String(),
  total: Type.Number(),
  status: Type.String(),
};
export const GqlInvoice = Type.Object({ ...GqlInvoiceBase, lines: Type.Array(GqlLine) });
export type GqlInvoice = Static<typeof GqlInvoice>;
export const GqlInvoiceDays = Type.Object({ invoiceDays: Type.Object({ days: Type.Array(Type.String()), totalDays: Type.Integer({ minimum: 0 }) }) });
export const GqlInvoicesOfDay = Type.Object({ invoices: Type.Array(GqlInvoice) });
export const GqlInvoiceById = Type.Object({ invoice: Nullable(GqlInvoice) });
/** Only what a recent-invoices sum needs. */
export const GqlInvoiceTotals = Type.Object({
  invoices: Type.Array(Type.Object({ id: Type.String(), date: GqlInvoiceBase.date, clientId: Type.String(), total: Type.Number(), status: Type.String() })),
});
