/** An import's settings as stored with its job (`import_job.options`) and the columns they select. Pure. */
import type { ImportField } from './import.fields.js';
import type { FileReading } from './import.reader.js';
import type { ImportKind } from './import.schemas.js';
import type { Columns } from './import.rows.js';

export interface ImportOptions {
  kind: ImportKind;
  reading: FileReading;
  /** Header text → field. */
  mapping: Record<string, ImportField>;
  match_by: string;
  on_match: 'update' | 'skip';
  default_country: string;
}

/** Where each mapped field is in a header row (the first header of a repeated name wins). */
export function columnsOf(header: string[], mapping: Record<string, ImportField>): Columns {
  const columns: Columns = {};
  header.forEach((h, index) => {
    const field = mapping[h];
    if (field !== undefined && columns[field] === undefined) columns[field] = { index, header: h };
  });
  return columns;
}
