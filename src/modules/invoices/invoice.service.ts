/**
 * Group invoices (SPEC "Group invoices", "Limits": per-day pagination). The group's clients are its
 * leads with an ERP id; page n is the n-th most recent day on which any of them has invoices. Read from
 * the ERP's GraphQL API with the caller's ERP session (the route is ERP-backed).
 */
import { notFound } from '../../platform/errors.js';
import type { IdentityService } from '../identity/index.js';
import type { GroupClient } from '../records/index.js';
import type { ErpAccess, ErpSessionService } from '../erp-session/index.js';
import { normalizeLine, todayIn } from './invoice-lines.js';
import {
  GqlInvoiceById,
  GqlInvoiceDays,
  GqlInvoicesOfDay,
  GqlInvoiceTotals,
  type GqlInvoice,
  type InvoiceDetailResponse,
  type InvoiceListResponse,
  type InvoiceSummary,
} from './invoice.schemas.js';

const INVOICE_FIELDS = `id number date issuedAt clientId clientName currencyCode total status
  lines { id quantity unitPrice total item { id code name productType } bundle { id code name } serial { id number } lot { id name expirationDate } serialId lotId }`;

function toSummary(inv: GqlInvoice, clients: GroupClient[]): InvoiceSummary {
  return {
    id: inv.id,
    number: inv.number,
    date: inv.date,
    issuedAt: inv.issuedAt,
    clientErpId: inv.clientId,
    clientName: clients.find((c) => c.erpId === inv.clientId)?.name ?? inv.clientName,
    leadId: clients.find((c) => c.erpId === inv.clientId)?.leadId ?? null,
    currencyCode: inv.currencyCode,
    total: inv.total,
    status: inv.status,
    lineCount: inv.lines.length,
  };
}

export interface InvoiceServiceDeps {
  sessions: ErpSessionService;
  identity: Pick<IdentityService, 'timeZoneOf'>;
  /** The group's clients (records), or undefined when the group is not the entity's. */
  groupClients(entityId: number, groupId: number): Promise<GroupClient[] | undefined>;
}

export function createInvoiceService(deps: InvoiceServiceDeps) {
  const { sessions } = deps;

  async function clientsOf(entityId: number, groupId: number): Promise<GroupClient[]> {
    const clients = await deps.groupClients(entityId, groupId);
    if (!clients) throw notFound('group', groupId);
    return clients;
  }

  const timeZoneOf = (entityId: number): Promise<string> => deps.identity.timeZoneOf(entityId);

  return {
    /** Throws 404 unless `groupId` is a group of `entityId` (checked before the ERP session is required). */
    async assertGroup(entityId: number, groupId: number): Promise<void> {
      await clientsOf(entityId, groupId);
    },
    /** GET /groups/:id/invoices?page=n. */
    async listByDay(access: ErpAccess, groupId: number, page: number): Promise<InvoiceListResponse> {
      const entityId = access.scope.entityId;
      const clients = await clientsOf(entityId, groupId);
      const settings = { clientCount: clients.length, timeZone: await timeZoneOf(entityId), detailPath: `/groups/${groupId}/invoices/{invoiceId}` };
      const empty = (reason: 'no_clients' | 'no_invoices' | 'page_out_of_range', message: string, totalPages: number): InvoiceListResponse => ({
        data: [],
        pagination: {
          mode: 'day',
          page,
          totalPages,
          hasNext: false,
          nextPage: null,
          previousPage: page > 1 ? Math.min(page - 1, Math.max(totalPages, 1)) : null,
        },
        day: null,
        settings,
        emptyState: { reason, message },
      });
      if (clients.length === 0) return empty('no_clients', 'This group has no clients (leads with an ERP id) yet', 0);
      const clientIds = clients.map((c) => c.erpId);
      const days = await sessions.graphql(
        access,
        'query Days($clientIds: [String!]!, $offset: Int!) { invoiceDays(clientIds: $clientIds, offset: $offset, limit: 1) { days totalDays } }',
        { clientIds, offset: page - 1 },
        GqlInvoiceDays,
      );
      const totalPages = days.invoiceDays.totalDays;
      const date = days.invoiceDays.days[0];
      if (date === undefined) {
        return totalPages === 0
          ? empty('no_invoices', "The group's clients have no invoices", 0)
          : empty('page_out_of_range', `There are only ${totalPages} days with invoices`, totalPages);
      }
      const ofDay = await sessions.graphql(
        access,
        `query Day($clientIds: [String!]!, $date: String!) { invoices(clientIds: $clientIds, date: $date) { ${INVOICE_FIELDS} } }`,
        { clientIds, date },
        GqlInvoicesOfDay,
      );
      // Never trust the ERP's filter: only this group's clients and this day.
      const invoices = ofDay.invoices.filter((i) => clientIds.includes(i.clientId) && i.date === date);
      const totals = new Map<string, number>();
      for (const inv of invoices) totals.set(inv.currencyCode, Math.round(((totals.get(inv.currencyCode) ?? 0) + inv.total) * 100) / 100);
      return {
        data: invoices.map((inv) => toSummary(inv, clients)),
        pagination: {
          mode: 'day',
          page,
          totalPages,
          hasNext: page < totalPages,
          nextPage: page < totalPages ? page + 1 : null,
          previousPage: page > 1 ? page - 1 : null,
        },
        day: { date, invoiceCount: invoices.length, totals: [...totals].map(([currencyCode, total]) => ({ currencyCode, total })) },
        settings,
        emptyState: null,
      };
    },

    /**
     * Count and summed `total` (currency units, as the list returns them) of the non-void invoices of the
     * group's clients dated within the last `days` days (today included, the entity's time zone), read with
     * any usable ERP session of the entity: the caller is the system (workflow trigger fields, SPEC "Filter
     * engine"). Undefined when the group is not the entity's, has no clients or no session can ask the ERP;
     * ERP errors propagate.
     */
    async recentTotals(entityId: number, groupId: number, days: number): Promise<{ count: number; total: number } | undefined> {
      const clients = await deps.groupClients(entityId, groupId);
      if (!clients || clients.length === 0) return undefined;
      const access = await sessions.anyAccess(entityId);
      if (!access) return undefined;
      const clientIds = clients.map((c) => c.erpId);
      const today = todayIn(await timeZoneOf(entityId));
      const since = new Date(Date.parse(today) - (days - 1) * 86_400_000).toISOString().slice(0, 10);
      // The ERP pages by day, newest first: at most `days` days can fall in the window.
      const recent = await sessions.graphql(
        access,
        'query Days($clientIds: [String!]!, $limit: Int!) { invoiceDays(clientIds: $clientIds, offset: 0, limit: $limit) { days totalDays } }',
        { clientIds, limit: days },
        GqlInvoiceDays,
      );
      const inWindow = recent.invoiceDays.days.filter((d) => d >= since && d <= today);
      const perDay = await Promise.all(
        inWindow.map((date) =>
          sessions.graphql(
            access,
            'query Day($clientIds: [String!]!, $date: String!) { invoices(clientIds: $clientIds, date: $date) { id date clientId total status } }',
            { clientIds, date },
            GqlInvoiceTotals,
          ),
        ),
      );
      const invoices = perDay.flatMap((r, i) =>
        r.invoices.filter((inv) => clientIds.includes(inv.clientId) && inv.date === inWindow[i] && inv.status !== 'void'),
      );
      const total = Math.round(invoices.reduce((sum, inv) => sum + inv.total, 0) * 100) / 100;
      return { count: invoices.length, total };
    },

    /** GET /groups/:id/invoices/:invoiceId: 404 unless the invoice belongs to one of the group's clients. */
    async detail(access: ErpAccess, groupId: number, invoiceId: string): Promise<InvoiceDetailResponse> {
      const entityId = access.scope.entityId;
      const clients = await clientsOf(entityId, groupId);
      const result = await sessions.graphql(access, `query One($id: ID!) { invoice(id: $id) { ${INVOICE_FIELDS} } }`, { id: invoiceId }, GqlInvoiceById);
      const inv = result.invoice;
      if (!inv || !clients.some((c) => c.erpId === inv.clientId)) throw notFound('invoice', invoiceId);
      const today = todayIn(await timeZoneOf(entityId));
      return { data: { ...toSummary(inv, clients), lines: inv.lines.map((l) => normalizeLine(l, today)) } };
    },
  };
}
export type InvoiceService = ReturnType<typeof createInvoiceService>;
