/**
 * Totals of a quote or order, in integer minor units of its one currency (money.ts). The rounding rule
 * (docs/decisions.md "Commerce"): each line rounds once per amount, half away from zero —
 *   gross    = quantity × unit price            (quantity in thousandths)
 *   discount = gross × discount rate            (basis points)
 *   net      = gross − discount
 *   tax      = net × tax rate                   (basis points)
 *   total    = net + tax
 * and the document's amounts are the sums of its lines' rounded amounts, so a document never disagrees
 * with its lines. Computed with BigInt: quantity × price can exceed 2^53 before it is divided.
 */

export interface LineInput {
  /** Quantity in thousandths (1.5 units = 1500). */
  quantityMilli: number;
  unitPriceMinor: number;
  /** 0..10000 (100.00 %). */
  discountBps: number;
  /** 0..10000 and beyond (a tax may exceed 100 %). */
  taxRateBps: number;
}

export interface LineAmounts {
  grossMinor: number;
  discountMinor: number;
  netMinor: number;
  taxMinor: number;
  totalMinor: number;
}

export interface DocumentAmounts {
  subtotalMinor: number;
  discountMinor: number;
  taxMinor: number;
  totalMinor: number;
}

/** `n / d` rounded half away from zero (d > 0). */
function divRound(n: bigint, d: bigint): bigint {
  const q = n / d;
  const r = n % d;
  if (r === 0n) return q;
  const twice = (r < 0n ? -r : r) * 2n;
  if (twice >= d) return n < 0n ? q - 1n : q + 1n;
  return q;
}

export function lineAmounts(line: LineInput): LineAmounts {
  const gross = divRound(BigInt(line.quantityMilli) * BigInt(line.unitPriceMinor), 1000n);
  const discount = divRound(gross * BigInt(line.discountBps), 10_000n);
  const net = gross - discount;
  const tax = divRound(net * BigInt(line.taxRateBps), 10_000n);
  return { grossMinor: Number(gross), discountMinor: Number(discount), netMinor: Number(net), taxMinor: Number(tax), totalMinor: Number(net + tax) };
}

export function documentAmounts(lines: readonly Omit<LineAmounts, 'netMinor'>[]): DocumentAmounts {
  let subtotal = 0;
  let discount = 0;
  let tax = 0;
  let total = 0;
  for (const l of lines) {
    subtotal += l.grossMinor;
    discount += l.discountMinor;
    tax += l.taxMinor;
    total += l.totalMinor;
  }
  return { subtotalMinor: subtotal, discountMinor: discount, taxMinor: tax, totalMinor: total };
}
