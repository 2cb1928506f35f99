/**
 * Object storage behind one interface (DESIGN "The stack": object storage). Two implementations:
 * S3 or any S3-compatible store (`s3.ts`), and local disk under `DATA_DIR/media` (`local.ts`), whose
 * presigned URLs the service serves itself (`local.routes.ts`). Bodies always stream; nothing here
 * holds a whole object in memory.
 */
import type { Readable } from 'node:stream';

/** A URL the client calls directly, without a JWT, until `expiresAt`. */
export interface PresignedUrl {
  url: string;
  method: 'PUT' | 'GET';
  /** Headers the client must send with the request (the content type an upload is signed for). */
  headers: Record<string, string>;
  expiresAt: Date;
}

interface PresignUploadOptions {
  contentType: string;
  /** Declared size in bytes. */
  size: number;
  expiresInSeconds: number;
  /** Origin (`http://host:port`) of the request that asked, for stores the service serves itself. */
  origin?: string | undefined;
}

interface PresignDownloadOptions {
  expiresInSeconds: number;
  /** `Content-Disposition` file name offered to the browser. */
  fileName?: string | undefined;
  /** `Content-Type` the download is served with. */
  contentType?: string | undefined;
  /** `Content-Disposition` type (default `attachment`): only what a browser may show in place is `inline`. */
  disposition?: 'inline' | 'attachment' | undefined;
  origin?: string | undefined;
}

interface ObjectInfo {
  /** Size in bytes. */
  size: number;
  contentType: string | undefined;
}

export interface ObjectStorage {
  readonly kind: 'local' | 's3';
  presignUpload(key: string, options: PresignUploadOptions): Promise<PresignedUrl>;
  presignDownload(key: string, options: PresignDownloadOptions): Promise<PresignedUrl>;
  /** Size and type of `key`; `undefined` when it does not exist. */
  head(key: string): Promise<ObjectInfo | undefined>;
  /** Streams `key` (bytes `start`..`end` inclusive when given); throws `ObjectNotFoundError` when absent. */
  read(key: string, range?: { start: number; end: number }): Promise<Readable>;
  /** Stores `body` (exactly `size` bytes) under `key`, replacing what was there. */
  write(key: string, body: Readable, options: { contentType: string; size: number }): Promise<void>;
  /** Copies `from` to `to` as one snapshot (what `from` held when the copy began); throws `ObjectNotFoundError` when absent. */
  copy(from: string, to: string): Promise<void>;
  /** Removes `key`; absent keys are not an error. */
  delete(key: string): Promise<void>;
}

/**
 * Headers of every response that serves stored bytes (issue 33): the browser must not sniff a type,
 * and should a page or SVG ever be opened it runs sandboxed with nothing allowed. Other origins may
 * embed the bytes (`<img>` on the web client's origin).
 */
export const SERVED_OBJECT_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; sandbox",
  'cross-origin-resource-policy': 'cross-origin',
};

/** A `Content-Disposition` value with the file name as RFC 8187 `filename*` (and none when there is none). */
export function contentDisposition(type: 'inline' | 'attachment', fileName: string | undefined): string {
  return fileName ? `${type}; filename*=UTF-8''${encodeURIComponent(fileName)}` : type;
}

export class ObjectNotFoundError extends Error {
  constructor(readonly key: string) {
    super(`object ${key} not found`);
    this.name = 'ObjectNotFoundError';
  }
}

/** Keys this service writes: path segments of `[A-Za-z0-9._-]`, no `..`, at most 500 characters. */
export function isValidObjectKey(key: string): boolean {
  return key.length > 0 && key.length <= 500 && /^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/.test(key) && !key.split('/').includes('..');
}
