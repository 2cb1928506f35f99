/** Maps media rows to API responses explicitly, so storage internals never leak. */
import type { MediaObjectRow } from './media.table.js';
import type { MediaObjectResponse } from './media.schemas.js';

/** `publicBaseUrl` (MEDIA_PUBLIC_BASE_URL) serves optimized keys from a CDN or bucket; unset, the service's own route. */
function publicUrlOf(row: MediaObjectRow, publicBaseUrl: string | undefined): string | null {
  if (row.status !== 'ready' || row.optimizedKey === null) return null;
  return publicBaseUrl !== undefined ? `${publicBaseUrl}/${row.optimizedKey}` : `/api/media/public?key=${encodeURIComponent(row.optimizedKey)}`;
}

export function toMediaResponse(row: MediaObjectRow, publicBaseUrl: string | undefined): MediaObjectResponse {
  return {
    id: row.id,
    kind: row.kind,
    content_type: row.contentType,
    file_name: row.fileName,
    size: row.size,
    voice_note: row.voiceNote,
    status: row.status,
    error: row.error,
    processing: row.processing,
    original_key: row.originalKey,
    optimized_key: row.optimizedKey,
    optimized_content_type: row.optimizedContentType,
    optimized_size: row.optimizedSize,
    public_url: publicUrlOf(row, publicBaseUrl),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
