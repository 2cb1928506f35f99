/**
 * Processes one finalized media object (SPEC "Media", step 5). Idempotent: it re-reads the row and acts
 * only on `processing`; an object whose original is gone is marked failed, never retried. A conversion
 * the input makes impossible marks it failed; anything else (storage, database) throws so the queue
 * retries. Where ffmpeg is missing, audio and video are kept unchanged and marked `unprocessed`, with one
 * warning per process. Completion publishes `media.processed` and `interaction.media.processed`.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/client.js';
import type { EventBus } from '../../platform/events/bus.js';
import { transaction } from '../../platform/transactions/transaction.js';
import type { RealtimeEmitter } from '../../platform/realtime/events.js';
import type { ObjectStorage } from '../../platform/storage/index.js';
import { findMediaById, transition } from './media.repository.js';
import type { MediaObjectRow } from './media.table.js';
import { emitMediaProcessed } from './media.events.js';
import { ConversionError, ffmpegAvailable, optimizeImage, transcodeAudio, transcodeVideo, type Converted } from './media.transcode.js';

export interface MediaProcessorDeps {
  db: Db;
  storage: ObjectStorage;
  events: EventBus;
  realtime: RealtimeEmitter;
  log: FastifyBaseLogger;
  imageMaxEdge: number;
  ffmpegPath: string;
}

type Outcome = { converted: Converted; processing: 'optimized' } | { converted: undefined; processing: 'unchanged' | 'unprocessed' };

async function sha256Of(stream: Readable): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of stream) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export function createMediaProcessor(deps: MediaProcessorDeps) {
  const { db, storage, log } = deps;
  let warnedNoFfmpeg = false;

  async function toFile(key: string, dir: string): Promise<string> {
    const path = join(dir, 'original');
    await pipeline(await storage.read(key), createWriteStream(path));
    return path;
  }

  async function convert(row: MediaObjectRow, dir: string): Promise<Outcome> {
    if (row.kind === 'image' || row.kind === 'sticker') {
      const converted = await optimizeImage(await storage.read(row.originalKey), dir, { maxEdge: deps.imageMaxEdge, sticker: row.kind === 'sticker' });
      return { converted, processing: 'optimized' };
    }
    if (row.kind === 'document') return { converted: undefined, processing: 'unchanged' };
    if (!(await ffmpegAvailable(deps.ffmpegPath))) {
      if (!warnedNoFfmpeg) log.warn({ ffmpegPath: deps.ffmpegPath }, 'ffmpeg is not available: audio and video are stored unprocessed');
      warnedNoFfmpeg = true;
      return { converted: undefined, processing: 'unprocessed' };
    }
    const input = await toFile(row.originalKey, dir);
    const converted =
      row.kind === 'audio' ? await transcodeAudio(deps.ffmpegPath, input, dir, row.voiceNote) : await transcodeVideo(deps.ffmpegPath, input, dir);
    return { converted, processing: 'optimized' };
  }

  async function finish(row: MediaObjectRow, set: Partial<MediaObjectRow>): Promise<void> {
    await transaction(
      db,
      async ({ tx, events: out }) => {
        const done = await transition(tx, row.id, ['processing'], { ...set, processedAt: new Date() });
        if (!done) return;
        const status = done.status as 'ready' | 'failed';
        out.domainEvent('media.processed', { entityId: done.entityId, mediaId: done.id, kind: done.kind, status });
        emitMediaProcessed(out, done.entityId, { media_id: done.id, kind: done.kind, status, processing: done.processing, error: done.error });
      },
      deps,
    );
  }

  return {
    /** Processes media `id` if it is still `processing`; resolves when it is ready or failed. */
    async process(id: number): Promise<void> {
      const row = await findMediaById(db, id);
      if (!row || row.status !== 'processing') return;
      if (!(await storage.head(row.originalKey))) {
        log.warn({ mediaId: id }, 'media original is gone; not processed');
        return finish(row, { status: 'failed', error: 'The uploaded file no longer exists' });
      }
      const dir = await mkdtemp(join(tmpdir(), 'crm-media-job-'));
      try {
        const outcome = await convert(row, dir);
        if (outcome.converted === undefined) {
          const sha = await sha256Of(await storage.read(row.originalKey));
          return await finish(row, {
            status: 'ready',
            processing: outcome.processing,
            optimizedKey: row.originalKey,
            optimizedContentType: row.contentType,
            optimizedSize: row.size,
            optimizedSha256: sha,
          });
        }
        const { path, contentType, extension } = outcome.converted;
        const size = (await stat(path)).size;
        const sha = await sha256Of(createReadStream(path));
        const key = `${row.originalKey.slice(0, row.originalKey.lastIndexOf('/'))}/${randomUUID()}.${extension}`;
        await storage.write(key, createReadStream(path), { contentType, size });
        await finish(row, {
          status: 'ready',
          processing: 'optimized',
          optimizedKey: key,
          optimizedContentType: contentType,
          optimizedSize: size,
          optimizedSha256: sha,
        });
      } catch (err) {
        if (!(err instanceof ConversionError)) throw err;
        log.info({ mediaId: id, err }, 'media could not be converted');
        await finish(row, { status: 'failed', error: err.message });
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}
export type MediaProcessor = ReturnType<typeof createMediaProcessor>;
