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

/**
 * Content types accepted per kind: an allow-list with nothing a browser executes or renders as a page
 * (no HTML, SVG, XML, JavaScript), since media are served back, some of them publicly (issue 33). The
 * documents are those WhatsApp sends as documents plus CSV, RTF, OpenDocument and ZIP.
 */
const MEDIA_CONTENT_TYPES: Record<MediaKind, readonly string[]> = {
  image: ['image/jpeg', 'image/png', 'image/webp', 'image/heic', 'image/heif', 'image/gif', 'image/tiff'],
  sticker: ['image/webp', 'image/png'],
  audio: [
    'audio/aac',
    'audio/mp4',
    'audio/mpeg',
    'audio/amr',
    'audio/ogg',
    'audio/opus',
    'audio/wav',
    'audio/x-wav',
    'audio/webm',
    'audio/flac',
    'audio/x-m4a',
  ],
  video: ['video/mp4', 'video/3gpp', 'video/quicktime', 'video/webm', 'video/x-matroska', 'video/x-msvideo'],
  document: [
    'application/pdf',
    'text/plain',
    'text/csv',
    'application/rtf',
    'application/zip',
    'application/msword',
    'application/vnd.ms-excel',
    'application/vnd.ms-powerpoint',
    'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    'application/vnd.openxmlformats-officedocument.presentationml.presentation',
    'application/vnd.oasis.opendocument.text',
    'application/vnd.oasis.opendocument.spreadsheet',
    'application/vnd.oasis.opendocument.presentation',
  ],
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
  // An xlsx is a zip; file-type names it only when its first entries are the OOXML parts, which streaming writers
  // (exceljs's WorkbookWriter among them) write last, so such a workbook sniffs as a plain zip (issue 52).
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'application/zip'],
  // The legacy Office formats are all Compound File Binary containers.
  'application/msword': ['application/x-cfb', 'application/msword'],
  'application/vnd.ms-excel': ['application/x-cfb', 'application/vnd.ms-excel'],
  'application/vnd.ms-powerpoint': ['application/x-cfb', 'application/vnd.ms-powerpoint'],
};

/**
 * Kinds a browser may show in place; everything else is served as an attachment (downloaded, never
 * rendered as a page of ours).
 */
const INLINE_KINDS: ReadonlySet<MediaKind> = new Set(['image', 'sticker', 'audio', 'video']);

/**
 * How stored bytes are served: a declared type off the allow-list (a row older than it) goes out as
 * `application/octet-stream`, and anything but image, audio and video as an attachment.
 */
export function servedAs(kind: MediaKind, contentType: string): { contentType: string; disposition: 'inline' | 'attachment' } {
  const allowed = Object.values(MEDIA_CONTENT_TYPES).some((types) => types.includes(contentType));
  return { contentType: allowed ? contentType : 'application/octet-stream', disposition: allowed && INLINE_KINDS.has(kind) ? 'inline' : 'attachment' };
}

/**
 * Every content type `servedAs` can answer: the allow-list of every kind plus `application/octet-stream`
 * (rows older than it), each once. `GET /media/public` declares them in the OpenAPI document.
 */
export const SERVED_CONTENT_TYPES: readonly string[] = [...new Set([...Object.values(MEDIA_CONTENT_TYPES).flat(), 'application/octet-stream'])];

/** The kind a content type uploads as when the client names none. */
export function kindOf(contentType: string): MediaKind {
  if (MEDIA_CONTENT_TYPES.image.includes(contentType)) return 'image';
  if (MEDIA_CONTENT_TYPES.audio.includes(contentType)) return 'audio';
  if (MEDIA_CONTENT_TYPES.video.includes(contentType)) return 'video';
  return 'document';
}

/** Whether `contentType` may upload as `kind` (the allow-list above). */
/** The content types accepted for `kind`, e.g. for a file picker's `accept` (the widget's, issue 48). */
export function contentTypesOf(kind: MediaKind): readonly string[] {
  return MEDIA_CONTENT_TYPES[kind];
}

export function acceptsContentType(kind: MediaKind, contentType: string): boolean {
  return MEDIA_CONTENT_TYPES[kind].includes(contentType);
}

/**
 * Whether the type sniffed from the bytes (`undefined`: no known signature) matches the declared type.
 * Media kinds must sniff as their declared type (or an alias); a document with no signature passes only
 * when declared as text, and a document with a signature must sniff as the type it declares.
 */
export function sniffMatches(kind: MediaKind, declared: string, sniffed: string | undefined): boolean {
  const accepted = SNIFF_ALIASES[declared] ?? [declared];
  if (sniffed === undefined) return kind === 'document' && declared.startsWith('text/');
  return accepted.includes(sniffed);
}
