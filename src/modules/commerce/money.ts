/**
 * Amounts in integer minor units of one ISO 4217 currency (GTQ 12.50 is 1250). The number of minor digits
 * comes from the ICU currency data of the runtime (2 for GTQ and USD, 0 for JPY, 3 for KWD). Amounts travel
 * as decimal strings in the API ("12.50") and are stored as integers; JavaScript numbers stay exact up
 * to 2^53 minor units, far above any quote.
 */

const digitsCache = new Map<string, number>();
// The ISO 4217 codes of the runtime's ICU data: Intl.NumberFormat alone accepts any three letters.
const KNOWN = new Set(Intl.supportedValuesOf('currency'));

/** Minor digits of `currency`, or undefined when it is not an ISO 4217 code the runtime knows. */
export function minorDigits(currency: string): number | undefined {
  if (!KNOWN.has(currency)) return undefined;
  let digits = digitsCache.get(currency);
  if (digits === undefined) {
    try {
      digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
    } catch {
      return undefined;
    }
    digitsCache.set(currency, digits);
  }
  return digits;
}

/** "12.5" in GTQ → 1250; undefined when the text is not a non-negative amount with at most the currency's digits. */
export function toMinor(amount: string, currency: string): number | undefined {
  const digits = minorDigits(currency);
  if (digits === undefined) return undefined;
  const m = /^(\d{1,13})(?:\.(\d+))?$/.exec(amount.trim());
  if (!m) return undefined;
  const fraction = m[2] ?? '';
  if (fraction.length > digits) return undefined;
  return Number(m[1]) * 10 ** digits + (fraction === '' ? 0 : Number(fraction.padEnd(digits, '0')));
}

/** 1250 in GTQ → "12.50". */
export function fromMinor(minor: number, currency: string): string {
  const digits = minorDigits(currency) ?? 2;
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  if (digits === 0) return `${sign}${abs}`;
  const unit = 10 ** digits;
  return `${sign}${Math.floor(abs / unit)}.${String(abs % unit).padStart(digits, '0')}`;
}
