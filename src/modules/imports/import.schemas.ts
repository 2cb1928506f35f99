import { Type, type Static } from 'typebox';
import { Id } from '../../platform/http/ids.js';
import { NullableString, StringEnum } from '../../platform/http/schema-types.js';
import { IMPORT_DELIMITERS, IMPORT_ENCODINGS, IMPORT_FORMATS } from './import.reader.js';

const IMPORT_KINDS = ['leads', 'contacts'] as const;
export type ImportKind = (typeof IMPORT_KINDS)[number];

const Kind = StringEnum(IMPORT_KINDS, {
  description: 'leads: one lead (and optionally its first contact) per row; contacts: one contact of an existing lead per row',
});

/** How to read the file; what is left out is detected. */
const readingFields = {
  media_id: Id,
  format: Type.Optional(StringEnum(IMPORT_FORMATS, { description: 'Detected: a zip is xlsx, anything else CSV' })),
  encoding: Type.Optional(StringEnum(IMPORT_ENCODINGS, { description: 'CSV only. Detected: a BOM, else valid UTF-8, else windows-1252' })),
  delimiter: Type.Optional(StringEnum(IMPORT_DELIMITERS, { description: 'CSV only. Detected among , ; tab |' })),
  sheet: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'xlsx only: the sheet to read (default the first)' })),
};

const Mapping = Type.Record(Type.String({ minLength: 1, maxLength: 200 }), Type.String({ minLength: 1, maxLength: 40 }), {
  description:
    'Header text → field (`name`, `group_id`, `erp_id`, `email`, `phone`, `tax_id`, `contact_name`, `contact_phone`, `contact_email` for leads; `name`, `lead_erp_id`, `lead_id`, `phone`, `whatsapp`, `email` for contacts). Unmapped columns are ignored.',
});

export const PreviewImportBody = Type.Object({ kind: Kind, ...readingFields }, { additionalProperties: false });
export type PreviewImportBody = Static<typeof PreviewImportBody>;

const FileReadingResponse = Type.Object({
  format: StringEnum(IMPORT_FORMATS),
  encoding: Type.Union([StringEnum(IMPORT_ENCODINGS), Type.Null()]),
  delimiter: Type.Union([StringEnum(IMPORT_DELIMITERS), Type.Null()]),
  sheet: NullableString(),
});

export const PreviewImportResponse = Type.Object({
  reading: FileReadingResponse,
  headers: Type.Array(Type.String()),
  suggested_mapping: Mapping,
  /** Up to five data rows as read. */
  sample: Type.Array(Type.Array(Type.String())),
});
export type PreviewImportResponse = Static<typeof PreviewImportResponse>;

export const CreateImportBody = Type.Object(
  {
    kind: Kind,
    ...readingFields,
    dry_run: Type.Optional(Type.Boolean({ description: 'Validate and count only: nothing is written. Default false' })),
    mapping: Type.Optional(Mapping),
    template_id: Type.Optional(Id),
    match_by: Type.Optional(
      StringEnum(['erp_id', 'email', 'phone', 'tax_id', 'whatsapp'], {
        description: 'Leads: erp_id (default), email, phone or tax_id; contacts: phone (default), whatsapp or email',
      }),
    ),
    on_match: Type.Optional(StringEnum(['update', 'skip'], { description: 'What a row matching an existing record does. Default update' })),
    default_country: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166 country of phone numbers written without +. Default GT' })),
  },
  { additionalProperties: false },
);
export type CreateImportBody = Static<typeof CreateImportBody>;

const ImportStatus = StringEnum(['queued', 'running', 'completed', 'failed', 'cancelled']);

const ImportRowError = Type.Object({
  row: Type.Integer({ description: 'Row of the file, the header being row 1' }),
  column: NullableString(),
  reason: Type.String(),
});

export const ImportResponse = Type.Object({
  id: Type.Integer(),
  kind: Kind,
  dry_run: Type.Boolean(),
  status: ImportStatus,
  media_id: Type.Integer(),
  reading: FileReadingResponse,
  mapping: Mapping,
  match_by: Type.String(),
  on_match: StringEnum(['update', 'skip']),
  default_country: Type.String(),
  total_rows: Type.Integer(),
  rows_done: Type.Integer(),
  created: Type.Integer({ description: 'Records created (in a dry run: that would be)' }),
  updated: Type.Integer(),
  skipped: Type.Integer(),
  errors: Type.Integer({ description: 'Rows not imported' }),
  first_errors: Type.Array(ImportRowError, { description: 'The first 20 failed rows' }),
  failure: NullableString(),
  created_at: Type.String({ format: 'date-time' }),
  finished_at: NullableString({ format: 'date-time' }),
});
export type ImportResponse = Static<typeof ImportResponse>;
export const ImportListResponse = Type.Object({ data: Type.Array(ImportResponse) });

export const ErrorReportResponse = Type.Object({
  url: Type.String(),
  expires_at: Type.String({ format: 'date-time' }),
});

export const CreateTemplateBody = Type.Object(
  { kind: Kind, name: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' }), mapping: Mapping },
  { additionalProperties: false },
);
export type CreateTemplateBody = Static<typeof CreateTemplateBody>;
export const TemplateResponse = Type.Object({
  id: Type.Integer(),
  kind: Kind,
  name: Type.String(),
  mapping: Mapping,
  created_at: Type.String({ format: 'date-time' }),
});
export type TemplateResponse = Static<typeof TemplateResponse>;
export const TemplateListResponse = Type.Object({ data: Type.Array(TemplateResponse) });

/** Payload of the socket event `import.progress`, about every second while an import runs and once when it ends. */
export const ImportProgressPayload = Type.Object({
  import_id: Type.Integer(),
  status: ImportStatus,
  dry_run: Type.Boolean(),
  rows_done: Type.Integer(),
  total_rows: Type.Integer(),
  created: Type.Integer(),
  updated: Type.Integer(),
  skipped: Type.Integer(),
  errors: Type.Integer(),
});
export type ImportProgressPayload = Static<typeof ImportProgressPayload>;
