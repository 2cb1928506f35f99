/**
 * Value kinds of custom fields (SPEC "Custom fields") and the validation of a value against its kind.
 * Pure functions: `checkValue` returns the normalized value to store or an error message.
 *
 * Value shapes (JSON):
 * - text: string (≤ 5000); number: finite number; date: `YYYY-MM-DD`; boolean: true/false;
 *   select: one of the field's `options`;
 * - currency: `{ currency: 'GTQ', amount: 1250.5 }`, currency an ISO 4217 code;
 * - department: `{ code: '01' }` (stored with its name); municipality: `{ department_code: '01', code: '0108' }`,
 *   the municipality must belong to the department;
 * - image, video, pdf: `{ media_id }`, a ready media object of the caller's entity and of the same kind
 *   (checked by the value service against the media module; this file checks the shape). Reading adds a
 *   short-lived `url` and its `expires_at`.
 */
import { DEPARTMENTS, MUNICIPALITIES } from './geo.js';

export const CUSTOM_FIELD_TYPES = [
  { code: 'text', label: 'Text', value_shape: 'string' },
  { code: 'number', label: 'Number', value_shape: 'number' },
  { code: 'date', label: 'Date', value_shape: 'string YYYY-MM-DD' },
  { code: 'boolean', label: 'Yes / no', value_shape: 'boolean' },
  { code: 'select', label: 'Choice', value_shape: "string, one of the field's options" },
  { code: 'currency', label: 'Currency amount', value_shape: '{ currency: ISO 4217 code, amount: number }' },
  { code: 'department', label: 'Department (Guatemala)', value_shape: '{ code }' },
  { code: 'municipality', label: 'Municipality (Guatemala)', value_shape: '{ department_code, code }' },
  { code: 'image', label: 'Image', value_shape: '{ media_id } (a ready image media object); read as { media_id, url, expires_at }' },
  { code: 'video', label: 'Video', value_shape: '{ media_id } (a ready video media object); read as { media_id, url, expires_at }' },
  { code: 'pdf', label: 'PDF document', value_shape: '{ media_id } (a ready document (PDF) media object); read as { media_id, url, expires_at }' },
] as const;

export type CustomFieldTypeCode = (typeof CUSTOM_FIELD_TYPES)[number]['code'];

const CURRENCIES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'));

export type CheckResult = { ok: true; value: unknown } | { ok: false; message: string };

const fail = (message: string): CheckResult => ({ ok: false, message });
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The media-valued kinds and what a referenced media object must be for each. */
export const MEDIA_VALUE_KINDS = {
  image: { mediaKind: 'image', contentType: undefined },
  video: { mediaKind: 'video', contentType: undefined },
  pdf: { mediaKind: 'document', contentType: 'application/pdf' },
} as const;
export type MediaValueKind = keyof typeof MEDIA_VALUE_KINDS;
export const isMediaValueKind = (type: string): type is MediaValueKind => type in MEDIA_VALUE_KINDS;

function isIsoDate(v: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(v)) return false;
  const d = new Date(`${v}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === v;
}

/** Validates `value` for a field of `type` (with `options` for select) written by a caller of `entityId`. */
export function checkValue(type: CustomFieldTypeCode, value: unknown, ctx: { options: string[]; entityId: number }): CheckResult {
  switch (type) {
    case 'text':
      return typeof value === 'string' && value.length <= 5000 ? { ok: true, value } : fail('must be a string of at most 5000 characters');
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? { ok: true, value } : fail('must be a finite number');
    case 'date':
      return typeof value === 'string' && isIsoDate(value) ? { ok: true, value } : fail('must be a date YYYY-MM-DD');
    case 'boolean':
      return typeof value === 'boolean' ? { ok: true, value } : fail('must be true or false');
    case 'select':
      return typeof value === 'string' && ctx.options.includes(value) ? { ok: true, value } : fail(`must be one of: ${ctx.options.join(', ')}`);
    case 'currency': {
      if (!isObject(value) || typeof value.currency !== 'string' || !CURRENCIES.has(value.currency)) {
        return fail('must be { currency, amount } with an ISO 4217 currency code');
      }
      if (typeof value.amount !== 'number' || !Number.isFinite(value.amount)) return fail('amount must be a finite number');
      return { ok: true, value: { currency: value.currency, amount: value.amount } };
    }
    case 'department': {
      const code = isObject(value) ? value.code : undefined;
      const name = typeof code === 'string' ? DEPARTMENTS.get(code) : undefined;
      return name !== undefined && typeof code === 'string' ? { ok: true, value: { code, name } } : fail('must be { code } of a department of Guatemala');
    }
    case 'municipality': {
      if (!isObject(value) || typeof value.code !== 'string' || typeof value.department_code !== 'string') {
        return fail('must be { department_code, code }');
      }
      const m = MUNICIPALITIES.get(value.code);
      if (!m) return fail(`municipality ${value.code} does not exist`);
      if (m.departmentCode !== value.department_code) return fail(`municipality ${value.code} does not belong to department ${value.department_code}`);
      return { ok: true, value: { department_code: value.department_code, code: value.code, name: m.name } };
    }
    case 'image':
    case 'video':
    case 'pdf': {
      const id = isObject(value) ? value.media_id : undefined;
      return typeof id === 'number' && Number.isInteger(id) && id > 0 && id <= 2_147_483_647
        ? { ok: true, value: { media_id: id } }
        : fail('must be { media_id } of a media object');
    }
  }
}

/** Fraction digits of an ISO 4217 currency (2 for GTQ, 0 for JPY), as the runtime knows them. */
const minorDigits = (currency: string) => new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;

/**
 * A stored value as text a customer can read (canned replies' `{{contact.custom.<id>}}`, issue 49), or null when
 * it has none. Numbers as JavaScript writes them (`1500.5`); dates as stored (`YYYY-MM-DD`); booleans `sí` / `no`
 * (customers are written to in Spanish); a select's option as stored (an option is its own label); currency as
 * `GTQ 1500.50` (the code, then the amount with the currency's minor digits); a department by its name, a
 * municipality as `name, department`. Media-valued kinds (image, video, pdf) have no text: null, as is a value
 * whose shape does not match its kind.
 */
export function textOf(type: CustomFieldTypeCode, value: unknown): string | null {
  switch (type) {
    case 'text':
    case 'date':
    case 'select':
      return typeof value === 'string' ? value : null;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? String(value) : null;
    case 'boolean':
      return typeof value === 'boolean' ? (value ? 'sí' : 'no') : null;
    case 'currency':
      return isObject(value) && typeof value.currency === 'string' && CURRENCIES.has(value.currency) && typeof value.amount === 'number'
        ? `${value.currency} ${value.amount.toFixed(minorDigits(value.currency))}`
        : null;
    case 'department':
      return isObject(value) && typeof value.name === 'string' ? value.name : null;
    case 'municipality': {
      if (!isObject(value) || typeof value.name !== 'string') return null;
      const department = typeof value.department_code === 'string' ? DEPARTMENTS.get(value.department_code) : undefined;
      return department === undefined ? value.name : `${value.name}, ${department}`;
    }
    case 'image':
    case 'video':
    case 'pdf':
      return null;
  }
}
