/**
 * Lines of a quote or order from the API's decimal strings to stored integers with their rounded amounts,
 * and back. Errors name the field (`/body/lines/2/unit_price`).
 */
import { validationFailed, type FieldError } from '../../platform/errors.js';
import { fromMinor, minorDigits, toMinor } from './money.js';
import { documentAmounts, lineAmounts, type DocumentAmounts, type LineAmounts } from './quote-totals.js';
import type { LineInput } from './document.schemas.js';

/** A line as stored: its inputs and its rounded amounts (net is gross − discount, not stored). */
export interface StoredLine extends Omit<LineAmounts, 'netMinor'> {
  position: number;
  productCode: string | null;
  description: string;
  quantityMilli: number;
  unitPriceMinor: number;
  discountBps: number;
  taxRateBps: number;
}

/** `"12.5"` with at most `digits` decimals → integer × 10^digits, or undefined. */
function scaled(text: string, digits: number): number | undefined {
  const m = /^(\d{1,13})(?:\.(\d+))?$/.exec(text);
  if (!m || (m[2] ?? '').length > digits) return undefined;
  return Number(m[1]) * 10 ** digits + Number((m[2] ?? '').padEnd(digits, '0') || '0');
}

/** 400 `validation_failed` for an unknown currency. */
export function assertCurrency(currency: string, field = '/body/currency'): void {
  if (minorDigits(currency) === undefined) throw validationFailed([{ field, message: `${currency} is not an ISO 4217 currency` }]);
}

/**
 * The lines priced and rounded in `currency`, with the document's amounts; 400 `validation_failed` naming
 * every bad field, a line or document whose amounts exceed 2^53 − 1 minor units included.
 */
export function priceLines(lines: readonly LineInput[], currency: string, at = '/body/lines'): { lines: StoredLine[]; amounts: DocumentAmounts } {
  const errors: FieldError[] = [];
  const stored: StoredLine[] = [];
  lines.forEach((l, i) => {
    const quantityMilli = scaled(l.quantity, 3);
    const unitPriceMinor = toMinor(l.unit_price, currency);
    const discountBps = scaled(l.discount_percent ?? '0', 2);
    const taxRateBps = scaled(l.tax_percent ?? '0', 2);
    if (quantityMilli === undefined || quantityMilli === 0)
      errors.push({ field: `${at}/${i}/quantity`, message: 'must be a positive quantity with up to 3 decimals' });
    if (unitPriceMinor === undefined)
      errors.push({ field: `${at}/${i}/unit_price`, message: `must be an amount with at most ${minorDigits(currency)} decimals for ${currency}` });
    if (discountBps === undefined || discountBps > 10_000)
      errors.push({ field: `${at}/${i}/discount_percent`, message: 'must be 0 to 100 with up to 2 decimals' });
    if (taxRateBps === undefined || taxRateBps > 100_000) errors.push({ field: `${at}/${i}/tax_percent`, message: 'must be 0 to 1000 with up to 2 decimals' });
    if (quantityMilli === undefined || unitPriceMinor === undefined || discountBps === undefined || taxRateBps === undefined) return;
    const input = { quantityMilli, unitPriceMinor, discountBps, taxRateBps };
    const { netMinor: _net, ...amounts } = lineAmounts(input);
    // Amounts travel as JS numbers and bigint columns: past 2^53 they would lose cents or overflow.
    if (!Object.values(amounts).every(Number.isSafeInteger)) {
      errors.push({ field: `${at}/${i}`, message: 'the line amounts are too large' });
      return;
    }
    stored.push({ position: i + 1, productCode: l.product_code ?? null, description: l.description.trim(), ...input, ...amounts });
  });
  if (errors.length > 0) throw validationFailed(errors);
  const amounts = documentAmounts(stored);
  if (!Object.values(amounts).every(Number.isSafeInteger)) throw validationFailed([{ field: at, message: 'the document total is too large' }]);
  return { lines: stored, amounts };
}

const percent = (bps: number) => (bps / 100).toFixed(2).replace(/\.?0+$/, '') || '0';
const quantity = (milli: number) => (milli % 1000 === 0 ? String(milli / 1000) : (milli / 1000).toFixed(3).replace(/0+$/, ''));

export function toLineResponse(l: StoredLine, currency: string) {
  return {
    position: l.position,
    product_code: l.productCode,
    description: l.description,
    quantity: quantity(l.quantityMilli),
    unit_price: fromMinor(l.unitPriceMinor, currency),
    discount_percent: percent(l.discountBps),
    tax_percent: percent(l.taxRateBps),
    gross: fromMinor(l.grossMinor, currency),
    discount: fromMinor(l.discountMinor, currency),
    tax: fromMinor(l.taxMinor, currency),
    total: fromMinor(l.totalMinor, currency),
    total_minor: l.totalMinor,
  };
}

export function toAmountsResponse(d: DocumentAmounts & { currency: string }) {
  return {
    currency: d.currency,
    subtotal: fromMinor(d.subtotalMinor, d.currency),
    discount: fromMinor(d.discountMinor, d.currency),
    tax: fromMinor(d.taxMinor, d.currency),
    total: fromMinor(d.totalMinor, d.currency),
    total_minor: d.totalMinor,
  };
}
