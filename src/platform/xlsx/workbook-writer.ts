/**
 * exceljs's streaming workbook writer with backpressure on its part streams.
 *
 * exceljs 4.4 hands each part (a worksheet's XML) to its zip through an internal buffer that ignores
 * backpressure: rows are turned into XML as fast as they are added, and whatever the deflate stage has
 * not compressed yet piles up in memory (about 0.3 KB per row of a sheet when rows come from a fast
 * database; upstream exceljs issues #1894 and #2916). This writer opens its parts as standard Node streams
 * instead, so the whole chain (part, deflate, zip, the caller's output) is piped with backpressure, and
 * `drained()` tells a producer when to add more rows. The XML, the zip and the API are exceljs's own.
 */
import { once } from 'node:events';
import { Transform, type Readable, type TransformCallback, type Writable } from 'node:stream';
import ExcelJS from 'exceljs';

/** What exceljs writes to a part stream: a Buffer, a string, or its StringBuf (which has `toBuffer()`). */
type PartChunk = Buffer | string | { toBuffer(): Buffer };

/** Bytes of XML a part may buffer before `drained()` waits: two chunks, a few hundred rows. Larger marks measured no faster and held more memory. */
const PART_HIGH_WATER_MARK = 128 * 1024;

/** Bytes of compressed output the zip may hold before it stops taking XML: the caller's output buffers too. */
const ZIP_HIGH_WATER_MARK = 64 * 1024;

/** Bytes of XML handed to the zip at once: exceljs writes each row separately, and zlib works per write. */
const PART_CHUNK = 64 * 1024;

/**
 * A worksheet part: takes exceljs's chunks (strings, Buffers and its StringBuf, copied) and passes them on
 * in `PART_CHUNK` pieces, with a standard stream's backpressure.
 */
class PartStream extends Transform {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  constructor() {
    super({ highWaterMark: PART_HIGH_WATER_MARK });
  }

  override write(chunk: PartChunk, encoding?: BufferEncoding | ((error?: Error | null) => void), callback?: (error?: Error | null) => void): boolean {
    const data = typeof chunk === 'string' || Buffer.isBuffer(chunk) ? chunk : chunk.toBuffer();
    // exceljs passes (chunk, callback) and (chunk, encoding, callback); Node's overloads take both.
    return typeof encoding === 'function' ? super.write(data, encoding) : super.write(data, encoding ?? 'utf8', callback);
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    if (this.pendingBytes >= PART_CHUNK) this.pushPending();
    callback();
  }

  override _flush(callback: TransformCallback): void {
    this.pushPending();
    callback();
  }

  private pushPending(): void {
    if (this.pendingBytes === 0) return;
    this.push(Buffer.concat(this.pending, this.pendingBytes));
    this.pending = [];
    this.pendingBytes = 0;
  }
}

// The members of exceljs's writer this subclass relies on (present in 4.x, absent from its typings).
interface WriterInternals {
  zip: { append(source: NodeJS.ReadableStream, data: { name: string }): void };
}

/**
 * `ExcelJS.stream.xlsx.WorkbookWriter` whose parts respect backpressure. Use it as exceljs documents
 * (add worksheets, add and commit rows, commit), and between batches of rows `await drained()`.
 */
export class BackpressuredWorkbookWriter extends ExcelJS.stream.xlsx.WorkbookWriter {
  private readonly parts: PartStream[] = [];

  /** exceljs's options; the zip's own output buffer defaults to `ZIP_HIGH_WATER_MARK` (archiver's is 1 MB). */
  constructor(options: Partial<ExcelJS.stream.xlsx.WorkbookStreamWriterOptions>) {
    // archiver takes `highWaterMark` (a stream option) though exceljs's typing of its options omits it.
    const zip = { highWaterMark: ZIP_HIGH_WATER_MARK, ...options.zip } as ExcelJS.stream.xlsx.WorkbookStreamWriterOptions['zip'];
    super({ ...options, zip });
  }

  /** Replaces exceljs's internal `_openStream`: the part goes into the zip as a standard stream. */
  _openStream(path: string): Writable {
    const part = new PartStream();
    (this as unknown as WriterInternals).zip.append(part, { name: path });
    // exceljs waits for 'zipped' on a worksheet committed by `commit()`.
    part.on('finish', () => part.emit('zipped'));
    this.parts.push(part);
    return part;
  }

  /**
   * Resolves once no part holds more than its high-water mark of XML not yet taken by the zip, or when
   * `abort` (the caller's output, say) is or gets destroyed first. Never rejects.
   */
  async drained(abort?: Readable | Writable): Promise<void> {
    for (const part of this.parts) {
      // A destroyed output never takes the rest, and its 'close' has already been emitted.
      if (abort?.destroyed) return;
      if (!part.writableNeedDrain || part.destroyed) continue;
      // One controller removes all three listeners once any fires (or fails).
      const done = new AbortController();
      const options = { signal: done.signal };
      const waits = [once(part, 'drain', options), once(part, 'close', options)];
      if (abort) waits.push(once(abort, 'close', options));
      await Promise.race(waits).catch(() => undefined);
      done.abort();
      await Promise.allSettled(waits);
    }
  }
}
