/**
 * Normalization of ERP invoice lines (SPEC "Group invoices"): every line gets `lineKind`, `code`,
 * `name`, `productType`, `trackingName`, `expirationDate` and `expirationLabel`, and keeps the raw
 * `item`, `bundle`, `serial`, `lot`, `serialId`, `lotId`.
 *
 * Kind precedence: a bundle line is `bundle`; an item with a serial is `serial`; with a lot, `lot`;
 * anything else `item`. Code and name come from the bundle for bundles, else from the item.
 */
import type { GqlLine, InvoiceLine } from './invoice.schemas.js';

/** Lots expiring within this many days are labelled by the days left. */
const EXPIRY_SOON_DAYS = 30;

const DAY_MS = 86_400_000;

/** Human label for an expiration date relative to `today` (both YYYY-MM-DD); null without a date. */
export function expirationLabel(expirationDate: string | null, today: string): string | null {
  if (expirationDate === null || !/^\d{4}-\d{2}-\d{2}/.test(expirationDate)) return null;
  const days = Math.round((Date.parse(expirationDate.slice(0, 10)) - Date.parse(today)) / DAY_MS);
  if (days < 0) return `Expired on ${expirationDate.slice(0, 10)}`;
  if (days === 0) return 'Expires today';
  if (days === 1) return 'Expires tomorrow';
  if (days <= EXPIRY_SOON_DAYS) return `Expires in ${days} days`;
  return `Expires on ${expirationDate.slice(0, 10)}`;
}

export function lineKindOf(line: Pick<GqlLine, 'bundle' | 'serial' | 'lot'>): InvoiceLine['lineKind'] {
  if (line.bundle) return 'bundle';
  if (line.serial) return 'serial';
  if (line.lot) return 'lot';
  return 'item';
}

/** The normalized line; `today` (YYYY-MM-DD, entity time zone) drives the expiration label. */
export function normalizeLine(line: GqlLine, today: string): InvoiceLine {
  const kind = lineKindOf(line);
  const source = kind === 'bundle' ? line.bundle : line.item;
  const expirationDate = line.lot?.expirationDate?.slice(0, 10) ?? null;
  return {
    id: line.id,
    lineKind: kind,
    code: source?.code ?? null,
    name: source?.name ?? null,
    productType: kind === 'bundle' ? 'bundle' : (line.item?.productType ?? null),
    trackingName: kind === 'serial' ? line.serial!.number : kind === 'lot' ? line.lot!.name : null,
    expirationDate,
    expirationLabel: expirationLabel(expirationDate, today),
    quantity: line.quantity,
    unitPrice: line.unitPrice,
    total: line.total,
    item: line.item,
    bundle: line.bundle,
    serial: line.serial,
    lot: line.lot,
    serialId: line.serialId ?? line.serial?.id ?? null,
    lotId: line.lotId ?? line.lot?.id ?? null,
  };
}

/** Today's date (YYYY-MM-DD) in `timeZone`. */
export function todayIn(timeZone: string, now: Date = new Date()): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
}
