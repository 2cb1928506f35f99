/**
 * What an import fills (issue 52): the fields of each kind, which are required, which can be matched on, and the
 * column mapping suggested from a file's headers (Spanish and English names, compared without case, accents or
 * punctuation). Pure functions.
 */
import type { ImportKind } from './import.schemas.js';

const LEAD_FIELDS = ['name', 'group_id', 'erp_id', 'email', 'phone', 'tax_id', 'contact_name', 'contact_phone', 'contact_email'] as const;
const CONTACT_FIELDS = ['name', 'lead_erp_id', 'lead_id', 'phone', 'whatsapp', 'email'] as const;
export type ImportField = (typeof LEAD_FIELDS)[number] | (typeof CONTACT_FIELDS)[number];

/** Fields a mapping must cover; for contacts one of `lead_erp_id` and `lead_id` is required too (checked apart). */
export const REQUIRED_FIELDS: Record<ImportKind, readonly ImportField[]> = { leads: ['name', 'group_id'], contacts: ['name'] };

/** The match keys an import may choose, per kind. */
export const MATCH_KEYS = { leads: ['erp_id', 'email', 'phone', 'tax_id'], contacts: ['phone', 'whatsapp', 'email'] } as const;
export type MatchKey = (typeof MATCH_KEYS)[ImportKind][number];

export function fieldsOf(kind: ImportKind): readonly ImportField[] {
  return kind === 'leads' ? LEAD_FIELDS : CONTACT_FIELDS;
}

/** Header names (normalized, see `normalizeHeader`) that suggest each field, per kind. */
const SYNONYMS: Record<ImportKind, Partial<Record<ImportField, string[]>>> = {
  leads: {
    name: ['name', 'nombre', 'razon social', 'nombre cliente', 'cliente', 'empresa', 'company', 'company name', 'full name', 'nombre completo', 'lead'],
    group_id: ['group', 'group id', 'grupo', 'grupo id', 'id grupo', 'codigo grupo'],
    erp_id: ['erp id', 'erp', 'codigo', 'codigo cliente', 'codigo erp', 'client code', 'customer code', 'customer id', 'id cliente'],
    email: ['email', 'e mail', 'correo', 'correo electronico', 'mail'],
    phone: ['phone', 'telefono', 'tel', 'celular', 'movil', 'mobile', 'phone number', 'numero', 'numero telefono'],
    tax_id: ['tax id', 'nit', 'rfc', 'ruc', 'nif', 'vat', 'vat number', 'identificacion tributaria'],
    contact_name: ['contact', 'contact name', 'contacto', 'nombre contacto', 'nombre del contacto'],
    contact_phone: ['contact phone', 'telefono contacto', 'telefono del contacto', 'celular contacto'],
    contact_email: ['contact email', 'correo contacto', 'correo del contacto', 'email contacto'],
  },
  contacts: {
    name: ['name', 'nombre', 'contact', 'contacto', 'nombre contacto', 'contact name', 'full name', 'nombre completo'],
    lead_erp_id: ['lead erp id', 'erp id', 'codigo cliente', 'codigo', 'client code', 'customer code', 'codigo erp'],
    lead_id: ['lead id', 'id lead', 'lead'],
    phone: ['phone', 'telefono', 'tel', 'celular', 'movil', 'mobile', 'phone number'],
    whatsapp: ['whatsapp', 'wa', 'whatsapp number', 'numero whatsapp'],
    email: ['email', 'e mail', 'correo', 'correo electronico', 'mail'],
  },
};

/** Lower case, accents removed, anything but letters and digits as one space: `Teléfono_Móvil` → `telefono movil`. */
function normalizeHeader(header: string): string {
  return header
    .normalize('NFD')
    .replace(/\p{Diacritic}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

/** The suggested mapping of `headers` for `kind`: header → field, each field once (the first header naming it). */
export function suggestMapping(kind: ImportKind, headers: readonly string[]): Record<string, ImportField> {
  const mapping: Record<string, ImportField> = {};
  const taken = new Set<ImportField>();
  const synonyms = SYNONYMS[kind];
  for (const header of headers) {
    const norm = normalizeHeader(header);
    const field = (Object.keys(synonyms) as ImportField[]).find((f) => !taken.has(f) && (f === norm.replace(/ /g, '_') || synonyms[f]!.includes(norm)));
    if (field) {
      mapping[header] = field;
      taken.add(field);
    }
  }
  return mapping;
}
