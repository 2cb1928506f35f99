/**
 * The media upload flow (SPEC "Media", six steps): presign an upload (within the entity's quotas), finalize
 * it (the uploaded bytes are copied to the sealed original key, which no URL can write, then its size
 * and its real type sniffed from its first bytes with `file-type` are checked against the declared
 * kind), dispatch processing, then presigned downloads (private, the caller's entity only) and public
 * reads of the optimized version. Errors: 400 `media_too_large`, `media_type_not_allowed`,
 * `upload_size_mismatch`, `upload_type_mismatch`; 403 `media_quota_exceeded`; 404 `not_found` (also
 * another entity's object); 409 `upload_missing`, `media_not_ready`, `original_removed`; 429
 * `media_upload_limit_reached`, and for website chat visitors `upload_limit_reached` (issue 48: their own
 * budgets, never the entity's quotas).
 */
import { transaction } from '../../platform/transactions/transaction.js';
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileTypeFromBuffer } from 'file-type';
import type { Db } from '../../db/client.js';
import type { Principal } from '../../platform/auth/authenticator.js';
import { AppError, badRequest, conflict, forbidden, notFound, validationFailed } from '../../platform/errors.js';
import type { ObjectStorage } from '../../platform/storage/index.js';
import { MEDIA_SIZE_LIMITS, acceptsContentType, kindOf, servedAs, sniffMatches, type MediaKind } from './media.kinds.js';
import { toMediaResponse } from './media.mapper.js';
import {
  findByOriginalKey,
  findMedia,
  findMediaMany,
  findReadyByPublicKey,
  insertMedia,
  lockEntityUploads,
  lockWebsiteUploads,
  transition,
  uploadUsage,
  visitorUploadUsage,
} from './media.repository.js';
import type {
  FinalizeUploadBody,
  MediaObjectResponse,
  PresignDownloadQuery,
  PresignDownloadResponse,
  PresignUploadBody,
  PresignUploadResponse,
  SignedUrl,
} from './media.schemas.js';
import type { MediaObjectRow } from './media.table.js';
import type { MediaJobs } from './media.jobs.js';
import { originalKeyOfUpload, uploadKeyOf } from './media.keys.js';
import { DOWNLOAD_URL_TTL_SECONDS, UPLOAD_URL_TTL_SECONDS, VISITOR_PENDING_TTL_MS } from './media.timing.js';

/**
 * Who uploads: an employee of the entity, or a website chat visitor (no employee; issue 32) with its
 * website, whose uploads count against the visitors' budgets (issue 48).
 */
export type MediaCaller = Pick<Principal, 'entityId'> & { employeeId: number | null; visitor?: { id: number; websiteId: number } };

/** Bytes read to sniff a type (file-type's recommended sample). */
const SNIFF_BYTES = 4100;

export interface MediaServiceDeps {
  db: Db;
  storage: ObjectStorage;
  jobs: Pick<MediaJobs, 'dispatch'>;
  publicBaseUrl: string | undefined;
  /** `MEDIA_QUOTA_BYTES_PER_ENTITY` and `MEDIA_QUOTA_UPLOADS_PER_DAY` (0: none). */
  quotas: { bytesPerEntity: number; uploadsPerDay: number };
  /** Website chat visitors' budgets (config `media.visitorQuotas`). */
  visitorQuotas: { pendingPerVisitor: number; bytesPerVisitorPerDay: number; bytesPerWebsitePerDay: number };
}

/**
 * 429 `upload_limit_reached`: a visitor may send no more files for now. It names no budget or usage: the
 * visitor is a stranger, and the figures are the company's.
 */
function visitorUploadRefused(retryAfterSeconds: number): AppError {
  return new AppError(
    429,
    'upload_limit_reached',
    'Too many requests',
    'No more files can be sent for now; try again later',
    {},
    { 'retry-after': String(retryAfterSeconds) },
  );
}

const DAY_MS = 86_400_000;

/** What another module may know of a media object it references (custom field values). */
export interface MediaSummary {
  id: number;
  kind: MediaKind;
  contentType: string;
  status: MediaObjectRow['status'];
}

/** The public, optimized bytes of a media object with their validators. */
export interface PublicMedia {
  body: Readable;
  contentType: string;
  /** `inline` for image, audio and video; `attachment` for the rest. */
  disposition: 'inline' | 'attachment';
  fileName: string;
  size: number;
  etag: string;
}

async function readHead(stream: Readable, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    chunks.push(chunk as Buffer);
    total += (chunk as Buffer).length;
    if (total >= limit) break;
  }
  stream.destroy();
  return Buffer.concat(chunks).subarray(0, limit);
}

const signed = (u: { url: string; method: 'PUT' | 'GET'; headers: Record<string, string>; expiresAt: Date }): SignedUrl => ({
  url: u.url,
  method: u.method,
  headers: u.headers,
  expires_at: u.expiresAt.toISOString(),
});

export function createMediaService(deps: MediaServiceDeps) {
  const { db, storage } = deps;
  const respond = (row: MediaObjectRow) => toMediaResponse(row, deps.publicBaseUrl);

  async function refuse(row: MediaObjectRow, error: AppError): Promise<never> {
    await storage.delete(row.originalKey);
    await storage.delete(uploadKeyOf(row.originalKey));
    await transition(db, row.id, ['pending'], { status: 'failed', error: error.message });
    throw error;
  }

  async function download(row: MediaObjectRow, variant: 'optimized' | 'original', origin?: string): Promise<SignedUrl> {
    if (variant === 'original') {
      if (row.status === 'pending') throw conflict('media_not_ready', `Media ${row.id} has not been uploaded and finalized`);
      if (row.originalDeletedAt !== null) throw conflict('original_removed', `The original of media ${row.id} was removed after its retention period`);
      const served = servedAs(row.kind, row.contentType);
      return signed(
        await storage.presignDownload(row.originalKey, {
          expiresInSeconds: DOWNLOAD_URL_TTL_SECONDS,
          fileName: row.fileName,
          contentType: served.contentType,
          disposition: served.disposition,
          origin,
        }),
      );
    }
    if (row.status !== 'ready' || row.optimizedKey === null)
      throw conflict('media_not_ready', `Media ${row.id} is ${row.status}`, { media_status: row.status });
    const ext = row.optimizedKey.includes('.') ? row.optimizedKey.slice(row.optimizedKey.lastIndexOf('.')) : '';
    const fileName = row.optimizedKey === row.originalKey ? row.fileName : row.fileName.replace(/(\.[^.]*)?$/, ext);
    const served = servedAs(row.kind, row.optimizedContentType ?? row.contentType);
    return signed(
      await storage.presignDownload(row.optimizedKey, {
        expiresInSeconds: DOWNLOAD_URL_TTL_SECONDS,
        fileName,
        contentType: served.contentType,
        disposition: served.disposition,
        origin,
      }),
    );
  }

  /** Refuses an upload past the entity's quotas; run under `lockEntityUploads`. */
  async function checkQuotas(tx: Db, entityId: number, size: number): Promise<void> {
    const { bytesPerEntity, uploadsPerDay } = deps.quotas;
    if (bytesPerEntity === 0 && uploadsPerDay === 0) return;
    const now = Date.now();
    const usage = await uploadUsage(tx, entityId, new Date(now - DAY_MS));
    if (uploadsPerDay > 0 && usage.recentUploads >= uploadsPerDay) {
      const retryAfter = Math.max(1, Math.ceil(((usage.oldestRecent?.getTime() ?? now) + DAY_MS - now) / 1000));
      throw new AppError(
        429,
        'media_upload_limit_reached',
        'Too many requests',
        `The entity may presign at most ${uploadsPerDay} uploads in 24 hours`,
        { limit_uploads: uploadsPerDay, retry_after_seconds: retryAfter },
        { 'retry-after': String(retryAfter) },
      );
    }
    if (bytesPerEntity > 0 && usage.bytes + size > bytesPerEntity) {
      throw forbidden('media_quota_exceeded', `The entity's media would exceed its quota of ${bytesPerEntity} bytes`, {
        limit_bytes: bytesPerEntity,
        used_bytes: usage.bytes,
        size,
      });
    }
  }

  /**
   * Refuses a visitor's upload of `size` bytes past its or its website's budget of sent bytes in 24 hours,
   * or (`presign`) past its pending uploads; run under `lockWebsiteUploads`. Only sent bytes count: a
   * presign reserves nothing, so presigning without uploading takes nothing from anyone.
   */
  async function checkVisitorBudgets(tx: Db, entityId: number, visitor: { id: number; websiteId: number }, size: number, presign: boolean): Promise<void> {
    const q = deps.visitorQuotas;
    const now = Date.now();
    const usage = await visitorUploadUsage(tx, entityId, visitor, new Date(now - DAY_MS), new Date(now - VISITOR_PENDING_TTL_MS));
    if (presign && usage.pending >= q.pendingPerVisitor) throw visitorUploadRefused(Math.ceil(VISITOR_PENDING_TTL_MS / 1000));
    if (usage.visitorBytes + size > q.bytesPerVisitorPerDay || usage.websiteBytes + size > q.bytesPerWebsitePerDay) throw visitorUploadRefused(3600);
  }

  return {
    /** Steps 1-2: records a pending object and returns where to PUT its bytes. */
    async presignUpload(caller: MediaCaller, body: PresignUploadBody, origin?: string): Promise<PresignUploadResponse> {
      const contentType = body.content_type.toLowerCase();
      const kind = body.kind ?? kindOf(contentType);
      if (body.voice_note === true && kind !== 'audio') throw validationFailed([{ field: '/body/voice_note', message: 'applies to audio only' }]);
      if (!acceptsContentType(kind, contentType)) {
        throw badRequest('media_type_not_allowed', `${contentType} cannot be uploaded as ${kind}`, { kind, content_type: contentType });
      }
      const limit = MEDIA_SIZE_LIMITS[kind];
      if (body.size > limit) throw badRequest('media_too_large', `A ${kind} may be at most ${limit} bytes`, { kind, limit_bytes: limit, size: body.size });
      // A random path segment makes keys unguessable; the entity prefix scopes them.
      const originalKey = `media/${caller.entityId}/${randomUUID()}/original`;
      const { visitor } = caller;
      const row = await transaction(db, async ({ tx }) => {
        if (visitor !== undefined) {
          await lockWebsiteUploads(tx, visitor.websiteId);
          await checkVisitorBudgets(tx, caller.entityId, visitor, body.size, true);
        } else {
          await lockEntityUploads(tx, caller.entityId);
          await checkQuotas(tx, caller.entityId, body.size);
        }
        return insertMedia(tx, {
          entityId: caller.entityId,
          kind,
          contentType,
          fileName: body.file_name,
          size: body.size,
          voiceNote: body.voice_note ?? false,
          originalKey,
          createdByEmployeeId: caller.employeeId,
          visitorId: visitor?.id ?? null,
          websiteId: visitor?.websiteId ?? null,
        });
      });
      const upload = await storage.presignUpload(uploadKeyOf(originalKey), { contentType, size: body.size, expiresInSeconds: UPLOAD_URL_TTL_SECONDS, origin });
      return { media: respond(row), upload: signed(upload) };
    },

    /** Steps 4-5: checks the uploaded object and dispatches processing. Repeating it returns the current state. */
    async finalizeUpload(caller: MediaCaller, body: FinalizeUploadBody): Promise<{ media: MediaObjectResponse }> {
      const row = await findMedia(db, caller.entityId, body.media_id);
      if (!row) throw notFound('media', body.media_id);
      if (row.status !== 'pending') return { media: respond(row) };
      // Seal first, check after: the checks read the copy, which no URL can write, so bytes swapped at
      // the upload key during or after finalize are never served (issue 33).
      const uploadKey = uploadKeyOf(row.originalKey);
      if (!(await storage.head(uploadKey))) throw conflict('upload_missing', `Nothing was uploaded for media ${row.id}`);
      await storage.copy(uploadKey, row.originalKey);
      await storage.delete(uploadKey);
      const info = await storage.head(row.originalKey);
      if (!info) throw conflict('upload_missing', `Nothing was uploaded for media ${row.id}`);
      if (info.size !== row.size) {
        await refuse(
          row,
          badRequest('upload_size_mismatch', `Declared ${row.size} bytes, uploaded ${info.size}`, { declared_size: row.size, uploaded_size: info.size }),
        );
      }
      const sniffed = (await fileTypeFromBuffer(await readHead(await storage.read(row.originalKey, { start: 0, end: SNIFF_BYTES - 1 }), SNIFF_BYTES)))?.mime;
      if (!sniffMatches(row.kind, row.contentType, sniffed)) {
        await refuse(
          row,
          badRequest('upload_type_mismatch', `Declared ${row.contentType}, the bytes are ${sniffed ?? 'of no recognized type'}`, {
            declared_content_type: row.contentType,
            detected_content_type: sniffed ?? null,
          }),
        );
      }
      // The status change and the processing job commit together: a crash between them loses nothing. A
      // visitor's bytes count once they are sent, so its budgets are checked again here.
      const { visitorId, websiteId } = row;
      const moved = await transaction(db, async (unit) => {
        const { tx } = unit;
        if (visitorId !== null && websiteId !== null) {
          await lockWebsiteUploads(tx, websiteId);
          try {
            await checkVisitorBudgets(tx, row.entityId, { id: visitorId, websiteId }, row.size, false);
          } catch (error) {
            if (error instanceof AppError) return error;
            throw error;
          }
        }
        const changed = await transition(tx, row.id, ['pending'], { status: 'processing', finalizedAt: new Date() });
        if (changed) await deps.jobs.dispatch(unit, changed.id);
        return changed;
      });
      if (moved instanceof AppError) return refuse(row, moved);
      if (!moved) return { media: respond((await findMedia(db, caller.entityId, row.id))!) };
      return { media: respond(moved) };
    },

    /**
     * Steps 1-5 in one call, for files that reach the service itself (a multipart message send): `file` is
     * spooled to a temporary file (never held in memory), stored, then finalized like an upload (type
     * sniffed, processing dispatched). `truncated()` tells whether the multipart parser cut the file at its
     * size limit (400 `media_too_large`). Returns the media object, `processing`.
     */
    async ingest(
      caller: Principal,
      input: { file: Readable; fileName: string; contentType: string; kind: MediaKind; voiceNote?: boolean | undefined; truncated: () => boolean },
    ): Promise<MediaObjectResponse> {
      const dir = await mkdtemp(join(tmpdir(), 'media-ingest-'));
      try {
        const path = join(dir, 'file');
        await pipeline(input.file, createWriteStream(path));
        const limit = MEDIA_SIZE_LIMITS[input.kind];
        const { size } = await stat(path);
        if (input.truncated() || size > limit)
          throw badRequest('media_too_large', `A ${input.kind} may be at most ${limit} bytes`, { kind: input.kind, limit_bytes: limit, size });
        if (size === 0) throw validationFailed([{ field: '/body/file', message: 'the file is empty' }]);
        const { media, upload: _upload } = await this.presignUpload(caller, {
          file_name: input.fileName,
          content_type: input.contentType,
          size,
          kind: input.kind,
          ...(input.voiceNote !== undefined ? { voice_note: input.voiceNote } : {}),
        });
        await storage.write(uploadKeyOf(media.original_key), createReadStream(path), { contentType: media.content_type, size });
        return (await this.finalizeUpload(caller, { media_id: media.id })).media;
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },

    /** Step 6, private: a short-lived URL of the caller's own object. */
    async presignDownload(caller: Principal, query: PresignDownloadQuery, origin?: string): Promise<PresignDownloadResponse> {
      const row = await findMedia(db, caller.entityId, query.media_id);
      if (!row) throw notFound('media', query.media_id);
      return { media: respond(row), download: await download(row, query.variant ?? 'optimized', origin) };
    },

    /**
     * Step 6, public: the optimized bytes of a ready object addressed by either of its keys, with the
     * type and disposition they are served with (`servedAs`).
     */
    async readPublic(key: string): Promise<PublicMedia> {
      const row = await findReadyByPublicKey(db, key);
      if (!row || row.optimizedKey === null) throw notFound('media');
      const served = servedAs(row.kind, row.optimizedContentType ?? row.contentType);
      const ext = row.optimizedKey.includes('.') ? row.optimizedKey.slice(row.optimizedKey.lastIndexOf('.')) : '';
      const fileName = row.optimizedKey === row.originalKey ? row.fileName : row.fileName.replace(/(\.[^.]*)?$/, ext);
      return {
        body: await storage.read(row.optimizedKey),
        contentType: served.contentType,
        disposition: served.disposition,
        fileName,
        size: row.optimizedSize ?? row.size,
        etag: `"${row.optimizedSha256 ?? row.id}"`,
      };
    },

    /**
     * Whether the embedded store may still accept a signed PUT to `key`: an upload key only while its
     * object is pending (once finalized or removed the URL is dead, 409 `upload_closed`); the sealed
     * original of an object never; keys of no media object are not this module's to refuse.
     */
    async acceptsUpload(key: string): Promise<boolean> {
      const originalKey = originalKeyOfUpload(key);
      if (originalKey !== undefined) return (await findByOriginalKey(db, originalKey))?.status === 'pending';
      return (await findByOriginalKey(db, key)) === undefined;
    },

    /**
     * The uploaded bytes of the entity's object `mediaId` as sealed at finalize (issue 52: an import reads its
     * file), with its name and size; `read` streams them, whole or a byte range (inclusive). 404 `not_found`
     * (another entity's too); 409 `media_not_ready` before finalize or after a failure, `original_removed`.
     */
    async original(
      entityId: number,
      mediaId: number,
    ): Promise<{ fileName: string; size: number; read: (range?: { start: number; end: number }) => Promise<Readable> }> {
      const row = await findMedia(db, entityId, mediaId);
      if (!row) throw notFound('media', mediaId);
      if (row.status === 'pending' || row.status === 'failed')
        throw conflict('media_not_ready', `Media ${row.id} is ${row.status}`, { media_status: row.status });
      if (row.originalDeletedAt !== null) throw conflict('original_removed', `The original of media ${row.id} was removed after its retention period`);
      return { fileName: row.fileName, size: row.size, read: (range) => storage.read(row.originalKey, range) };
    },

    /** Media objects of the entity among `ids` (for modules that reference media by id). */
    async summaries(entityId: number, ids: number[]): Promise<Map<number, MediaSummary>> {
      const rows = await findMediaMany(db, entityId, ids);
      return new Map(rows.map((r) => [r.id, { id: r.id, kind: r.kind, contentType: r.contentType, status: r.status }]));
    },

    /** Short-lived download URLs of the entity's ready objects among `ids`; others are left out. */
    async downloadUrls(entityId: number, ids: number[], origin?: string): Promise<Map<number, SignedUrl>> {
      const rows = (await findMediaMany(db, entityId, ids)).filter((r) => r.status === 'ready');
      return new Map(await Promise.all(rows.map(async (r) => [r.id, await download(r, 'optimized', origin)] as const)));
    },
  };
}
export type MediaService = ReturnType<typeof createMediaService>;
