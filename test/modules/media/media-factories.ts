/** Media objects for tests of other modules: rows in a chosen state, without files behind them. */
import { randomUUID } from 'node:crypto';
import type { Db } from '../../../src/db/client.js';
import { insertMedia } from '../../../src/modules/media/media.repository.js';
import type { MediaObjectRow } from '../../../src/modules/media/media.table.js';

export async function makeMedia(
  db: Db,
  opts: { entityId: number; kind?: MediaObjectRow['kind']; contentType?: string; status?: MediaObjectRow['status'] },
): Promise<MediaObjectRow> {
  const kind = opts.kind ?? 'image';
  const originalKey = `media/${opts.entityId}/${randomUUID()}/original`;
  const ready = (opts.status ?? 'ready') === 'ready';
  return insertMedia(db, {
    entityId: opts.entityId,
    kind,
    contentType: opts.contentType ?? { image: 'image/jpeg', audio: 'audio/ogg', video: 'video/mp4', document: 'application/pdf', sticker: 'image/webp' }[kind],
    fileName: 'file',
    size: 10,
    status: opts.status ?? 'ready',
    originalKey,
    ...(ready ? { optimizedKey: `${originalKey}.opt`, optimizedSize: 10, processing: 'optimized' as const, processedAt: new Date() } : {}),
  });
}
