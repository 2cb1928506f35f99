/**
 * Upload kinds, their size limits and accepted content types: the WhatsApp Cloud API media limits
 * (image 5 MB, audio and video 16 MB, document 100 MB, sticker 500 KB), so that anything stored can be
 * sent on the channel. Audio and video types WhatsApp does not play are accepted because processing
 * converts them. Pure functions.
 */
export const MEDIA_KINDS = ['image', 'audio', 'video', 'document', 'sticker'] as const;
export type MediaKind = (typeof MEDIA_KINDS)[number];

const MB = 1024 * 1024;
/** Largest upload per kind, in bytes. */
export const MEDIA_SIZE_LIMITS: Record<MediaKind, number> = { image: 5 * MB, audio: 16 * MB, video: 16 * MB, document: 100 * MB, sticker: 500 * 1024 };

/** Content types accepted per kind; `document` accepts any type not claimed by another kind. */
export const MEDIA_CONTENT_TYPES: Record<Exclude<MediaKind, 'document'>, readonly string[]> = {
  image: ['image/jpeg', 'image/png', 'image/webp', 'image/heic', 'image/heif', 'image/gif', 'image/tiff'],
  sticker: ['image/webp', 'image/png'],
  audio: ['audio/aac', 'audio/mp4', 'audio/mpeg', 'audio/amr', 'audio/ogg', 'audio/opus', 'audio/wav', 'audio/x-wav', 'audio/webm', 'audio/flac', 'audio/x-m4a'],
  video: ['video/mp4', 'video/3gpp', 'video/quicktime', 'video/webm', 'video/x-matroska', 'video/x-msvideo'],
};

/** Types that sniff differently from how clients declare them: declared type → sniffed types accepted. */
const SNIFF_ALIASES: Record<string, readonly string[]> = {
  'audio/aac': ['audio/aac', 'audio/x-aac'],
  'audio/mp4': ['audio/mp4', 'audio/x-m4a', 'video/mp4'],
  'audio/x-m4a': ['audio/mp4', 'audio/x-m4a', 'video/mp4'],
  'audio/ogg': ['audio/ogg', 'audio/opus', 'audio/ogg; codecs=opus'],
  'audio/opus': ['audio/ogg', 'audio/opus', 'audio/ogg; codecs=opus'],
  'audio/wav': ['audio/wav', 'audio/vnd.wave', 'audio/x-wav'],
  'audio/x-wav': ['audio/wav', 'audio/vnd.wave', 'audio/x-wav'],
  'audio/webm': ['audio/webm', 'video/webm'],
  'audio/flac': ['audio/flac', 'audio/x-flac'],
  'audio/amr': ['audio/amr'],
  'image/heic': ['image/heic', 'image/heif'],
  'image/heif': ['image/heic', 'image/heif'],
  'video/quicktime': ['video/quicktime', 'video/mp4'],
  'video/x-matroska': ['video/x-matroska', 'video/matroska', 'video/webm'],
  'video/x-msvideo': ['video/x-msvideo', 'video/vnd.avi'],
  'video/3gpp': ['video/3gpp', 'video/mp4'],
  'text/plain': [],
  'text/csv': [],
};

/** The kind a content type uploads as when the client names none. */
export function kindOf(contentType: string): MediaKind {
  if (MEDIA_CONTENT_TYPES.image.includes(contentType)) return 'image';
  if (MEDIA_CONTENT_TYPES.audio.includes(contentType)) return 'audio';
  if (MEDIA_CONTENT_TYPES.video.includes(contentType)) return 'video';
  return 'document';
}

/** Whether `contentType` may upload as `kind`. */
export function acceptsContentType(kind: MediaKind, contentType: string): boolean {
  if (kind === 'document') return !/^(image|audio|video)\//.test(contentType);
  return MEDIA_CONTENT_TYPES[kind].includes(contentType);
}

/**
 * Whether the type sniffed from the bytes (`undefined`: no known signature) matches the declared type.
 * Media kinds must sniff as their declared type (or an alias); a document with no signature passes only
 * when declared as text, and a document with a signature must sniff as the type it declares.
 */
export function sniffMatches(kind: MediaKind, declared: string, sniffed: string | undefined): boolean {
  const accepted = SNIFF_ALIASES[declared] ?? [declared];
  if (sniffed === undefined) return kind === 'document' && (declared.startsWith('text/') || declared === 'application/json');
  return accepted.includes(sniffed);
}
