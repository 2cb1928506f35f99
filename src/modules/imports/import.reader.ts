/**
 * Reading an import file (issue 52) as rows of text cells, streamed: CSV through `iconv-lite` (encoding) and
 * `csv-parse` (quotes, quoted newlines, ragged rows), xlsx through exceljs's streaming reader (the first sheet
 * or a named one; a formula cell reads as its cached result, a date cell as `YYYY-MM-DD`). What is not
 * declared is detected from the file's first bytes: the format (an xlsx is a zip), the text encoding (a BOM,
 * else UTF-8 when the bytes are valid UTF-8, else Windows-1252, the Latin-1 of spreadsheets) and the CSV
 * delimiter (`,` `;` tab `|`, the one splitting the first lines most consistently).
 * Errors: 400 `import_file_empty`, `import_file_not_text`, `import_sheet_not_found`.
 */
import type { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import iconv from 'iconv-lite';
import ExcelJS from 'exceljs';
import { badRequest } from '../../platform/errors.js';

export const IMPORT_FORMATS = ['csv', 'xlsx'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];
export const IMPORT_ENCODINGS = ['utf-8', 'utf-16le', 'windows-1252', 'iso-8859-1'] as const;
export type ImportEncoding = (typeof IMPORT_ENCODINGS)[number];
export const IMPORT_DELIMITERS = [',', ';', '\t', '|'] as const;
export type ImportDelimiter = (typeof IMPORT_DELIMITERS)[number];

/** How a file is read: detected, or as the client declared it. `encoding`/`delimiter` are null for xlsx, `sheet` for CSV. */
export interface FileReading {
  format: ImportFormat;
  encoding: ImportEncoding | null;
  delimiter: ImportDelimiter | null;
  sheet: string | null;
}

/** Bytes of the file's start read to detect its format, encoding and delimiter. */
export const HEAD_BYTES = 64 * 1024;

const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04]);

/**
 * How to read a file whose first bytes are `head` (up to `HEAD_BYTES`) and whose size is `size`: the client's
 * choices where given, the rest detected. Refuses an empty file and a binary file offered as text.
 */
export function detectReading(
  head: Buffer,
  size: number,
  declared: { format?: ImportFormat | undefined; encoding?: ImportEncoding | undefined; delimiter?: ImportDelimiter | undefined; sheet?: string | undefined },
): FileReading {
  if (size === 0 || head.length === 0) throw badRequest('import_file_empty', 'The file is empty (0 bytes)');
  const isZip = head.subarray(0, 4).equals(ZIP_MAGIC);
  const format = declared.format ?? (isZip ? 'xlsx' : 'csv');
  if (format === 'xlsx') {
    if (!isZip) throw badRequest('import_file_not_xlsx', 'The file is not an xlsx workbook');
    return { format, encoding: null, delimiter: null, sheet: declared.sheet ?? null };
  }
  const encoding = declared.encoding ?? detectEncoding(head);
  if (encoding !== 'utf-16le' && looksBinary(head)) {
    throw badRequest('import_file_not_text', 'The file is not text: a CSV file was expected (or an xlsx workbook)');
  }
  const text = iconv.decode(head, encoding);
  return { format, encoding, delimiter: declared.delimiter ?? detectDelimiter(text), sheet: null };
}

/** A BOM names the encoding; else valid UTF-8 is UTF-8 and anything else is Windows-1252. */
function detectEncoding(head: Buffer): ImportEncoding {
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return 'utf-8';
  if (head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  try {
    // `stream: true` leaves a sequence cut at the end of the sample undecoded instead of calling it invalid.
    new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: true });
    return 'utf-8';
  } catch {
    return 'windows-1252';
  }
}

/** A NUL byte, a known binary signature, or many control characters: no spreadsheet export looks like that. */
function looksBinary(head: Buffer): boolean {
  if (head.subarray(0, 4).equals(ZIP_MAGIC) || head.subarray(0, 4).toString('latin1') === '%PDF') return true;
  let control = 0;
  for (const b of head) {
    if (b === 0) return true;
    if (b < 0x09 || (b > 0x0d && b < 0x20)) control++;
  }
  return control > head.length / 100;
}

/**
 * The delimiter that splits the first lines (newlines inside quotes kept) into the same number of fields most
 * consistently, preferring more fields; `,` when none splits the header.
 */
function detectDelimiter(text: string): ImportDelimiter {
  const lines = firstRecords(text, 20);
  let best: { delimiter: ImportDelimiter; score: number } = { delimiter: ',', score: 0 };
  for (const d of IMPORT_DELIMITERS) {
    const counts = lines.map((l) => countOutsideQuotes(l, d));
    const first = counts[0] ?? 0;
    if (first === 0) continue;
    const consistent = counts.filter((c) => c === first).length / counts.length;
    const score = consistent * 1000 + first;
    if (score > best.score) best = { delimiter: d, score };
  }
  return best.delimiter;
}

/** Up to `n` records of `text`, a newline inside double quotes not ending one (the last, maybe cut, left out when others exist). */
function firstRecords(text: string, n: number): string[] {
  const out: string[] = [];
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length && out.length < n; i++) {
    const ch = text[i];
    if (ch === '"') quoted = !quoted;
    else if (ch === '\n' && !quoted) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  if (out.length === 0) out.push(text);
  return out.filter((l) => l.trim() !== '');
}

function countOutsideQuotes(line: string, d: string): number {
  let quoted = false;
  let n = 0;
  for (const ch of line) {
    if (ch === '"') quoted = !quoted;
    else if (ch === d && !quoted) n++;
  }
  return n;
}

/**
 * The file's rows as text cells, header first, streamed from `input` (destroyed when the caller stops early).
 * Empty lines are skipped; cells are trimmed. Throws 400 `import_sheet_not_found` when the named sheet is absent.
 */
export async function* readRows(input: Readable, reading: FileReading): AsyncGenerator<string[]> {
  try {
    if (reading.format === 'csv') yield* csvRows(input, reading);
    else yield* xlsxRows(input, reading.sheet);
  } finally {
    input.destroy();
  }
}

async function* csvRows(input: Readable, reading: FileReading): AsyncGenerator<string[]> {
  const parser = input.pipe(iconv.decodeStream(reading.encoding ?? 'utf-8')).pipe(
    parse({
      delimiter: reading.delimiter ?? ',',
      bom: true,
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: true,
      trim: true,
    }),
  );
  for await (const record of parser) yield record as string[];
}

async function* xlsxRows(input: Readable, sheet: string | null): AsyncGenerator<string[]> {
  const workbook = new ExcelJS.stream.xlsx.WorkbookReader(input, { worksheets: 'emit', sharedStrings: 'cache', hyperlinks: 'ignore', styles: 'cache' });
  for await (const worksheet of workbook) {
    const name = (worksheet as unknown as { name?: string }).name;
    const wanted = sheet === null || name === sheet;
    for await (const row of worksheet) {
      if (!wanted) continue;
      const values = row.values as unknown[];
      const cells: string[] = [];
      for (let c = 1; c < values.length; c++) cells.push(cellText(values[c]));
      if (cells.some((v) => v !== '')) yield cells;
    }
    if (wanted) return;
  }
  throw badRequest('import_sheet_not_found', `The workbook has no sheet named "${sheet ?? ''}"`, { sheet });
}

/** A cell's value as text: a formula's result, rich text joined, a date as `YYYY-MM-DD`, a number as written. */
function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (v instanceof Date) return v.toISOString().slice(0, 10);
  if (typeof v === 'object') {
    const o = v as { result?: unknown; richText?: { text: string }[]; text?: unknown; error?: unknown };
    if ('result' in o) return cellText(o.result);
    if (o.richText)
      return o.richText
        .map((r) => r.text)
        .join('')
        .trim();
    if (o.text !== undefined) return cellText(o.text);
    return '';
  }
  if (typeof v === 'string') return v.trim();
  return typeof v === 'number' || typeof v === 'boolean' ? String(v) : '';
}
