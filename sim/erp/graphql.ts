/**
 * The simulator's GraphQL API (graphql-js): reference catalogs and operational data of the entity the
 * caller's GraphQL JWT was issued for. Field names follow docs/erp-contract.md.
 */
import { buildSchema, graphql, type GraphQLSchema } from 'graphql';
import type { ErpData, SimInvoice, SimLine } from './data.js';

export const SDL = `
type Currency { code: String!, name: String!, symbol: String!, decimals: Int! }
type Department { code: String!, name: String! }
type Municipality { code: String!, name: String!, departmentCode: String! }
type Product { id: ID!, code: String!, name: String!, productType: String! }
type Bundle { id: ID!, code: String!, name: String! }
type Price { currencyCode: String!, amount: String! }
type CatalogProduct {
  id: ID!, code: String!, name: String!, description: String, unit: String!, category: String,
  images: [String!]!, stock: Float!, prices: [Price!]!
}
type Serial { id: ID!, number: String! }
type Lot { id: ID!, name: String!, expirationDate: String }
type InvoiceLine {
  id: ID!, quantity: Float!, unitPrice: Float!, total: Float!,
  item: Product, bundle: Bundle, serial: Serial, lot: Lot, serialId: ID, lotId: ID
}
type Invoice {
  id: ID!, number: String!, date: String!, issuedAt: String!, clientId: String!, clientName: String!,
  currencyCode: String!, total: Float!, status: String!, lines: [InvoiceLine!]!
}
type InvoiceDays { days: [String!]!, totalDays: Int! }
type Query {
  currencies: [Currency!]!
  departments: [Department!]!
  municipalities(departmentCode: String): [Municipality!]!
  products: [Product!]!
  catalogProducts: [CatalogProduct!]!
  invoiceDays(clientIds: [String!]!, offset: Int!, limit: Int!): InvoiceDays!
  invoices(clientIds: [String!]!, date: String!): [Invoice!]!
  invoice(id: ID!): Invoice
}
`;

export interface GraphqlCaller {
  userId: number;
  entityId: number;
}

export function createGraphqlApi(data: ErpData, count: (field: string) => void) {
  const schema: GraphQLSchema = buildSchema(SDL);
  const round = (n: number) => Math.round(n * 100) / 100;
  const lineView = (l: SimLine) => ({
    id: l.id,
    quantity: l.quantity,
    unitPrice: l.unitPrice,
    total: round(l.quantity * l.unitPrice),
    item: l.itemId ? (data.products.find((p) => p.id === l.itemId) ?? null) : null,
    bundle: l.bundleId ? (data.bundles.find((b) => b.id === l.bundleId) ?? null) : null,
    serial: l.serial,
    lot: l.lot,
    serialId: l.serial?.id ?? null,
    lotId: l.lot?.id ?? null,
  });
  const invoiceView = (inv: SimInvoice) => ({
    ...inv,
    clientName: data.clients.find((c) => c.id === inv.clientId)?.name ?? inv.clientId,
    total: round(inv.lines.reduce((sum, l) => sum + l.quantity * l.unitPrice, 0)),
    lines: inv.lines.map(lineView),
  });
  const visible = (caller: GraphqlCaller, clientIds: string[]) =>
    data.invoices.filter((i) => i.entityId === caller.entityId && clientIds.includes(i.clientId) && i.status !== 'void');

  const root = {
    currencies: () => (count('currencies'), data.currencies),
    departments: () => (count('departments'), data.departments.map((d) => ({ code: d.code, name: d.name }))),
    municipalities: (args: { departmentCode?: string | null }) => {
      count('municipalities');
      return data.departments
        .filter((d) => !args.departmentCode || d.code === args.departmentCode)
        .flatMap((d) => d.municipalities.map((m) => ({ ...m, departmentCode: d.code })));
    },
    products: () => (count('products'), data.products),
    catalogProducts: (_args: unknown, caller: GraphqlCaller) => (count('catalogProducts'), data.catalogProducts.filter((p) => p.entityId === caller.entityId)),
    invoiceDays: (args: { clientIds: string[]; offset: number; limit: number }, caller: GraphqlCaller) => {
      count('invoiceDays');
      const days = [...new Set(visible(caller, args.clientIds).map((i) => i.date))].sort().reverse();
      return { days: days.slice(Math.max(0, args.offset), Math.max(0, args.offset) + Math.max(0, args.limit)), totalDays: days.length };
    },
    invoices: (args: { clientIds: string[]; date: string }, caller: GraphqlCaller) => {
      count('invoices');
      return visible(caller, args.clientIds)
        .filter((i) => i.date === args.date)
        .sort((a, b) => b.issuedAt.localeCompare(a.issuedAt) || b.id.localeCompare(a.id))
        .map(invoiceView);
    },
    invoice: (args: { id: string }, caller: GraphqlCaller) => {
      count('invoice');
      const inv = data.invoices.find((i) => i.id === args.id && i.entityId === caller.entityId);
      return inv ? invoiceView(inv) : null;
    },
  };

  return {
    async execute(query: string, variables: Record<string, unknown> | undefined, caller: GraphqlCaller) {
      // graphql-js passes (args, context) to root-level functions; the caller travels as context.
      return graphql({ schema, source: query, rootValue: root, contextValue: caller, variableValues: variables ?? null });
    },
  };
}
