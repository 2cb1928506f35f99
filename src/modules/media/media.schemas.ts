/** TypeBox request and response schemas of the media API (SPEC "Media"). */
import { Id } from '../../platform/http/ids.js';
import { Type, type Static } from 'typebox';

const Kind = Type.Union([Type.Literal('image'), Type.Literal('audio'), Type.Literal('video'), Type.Literal('document'), Type.Literal('sticker')]);

export const PresignUploadBody = Type.Object(
  {
    file_name: Type.String({ minLength: 1, maxLength: 255, description: 'Original file name (kept for downloads)' }),
    content_type: Type.String({ minLength: 3, maxLength: 150, pattern: '^[a-zA-Z0-9.+-]+/[a-zA-Z0-9.+-]+$', description: 'Declared MIME type, no parameters' }),
    size: Type.Integer({ minimum: 1, description: 'Declared size in bytes' }),
    kind: Type.Optional(
      Type.Union([Type.Literal('image'), Type.Literal('audio'), Type.Literal('video'), Type.Literal('document'), Type.Literal('sticker')], {
        description: 'Default: derived from content_type (sticker only when named)',
      }),
    ),
    voice_note: Type.Optional(Type.Boolean({ description: 'Audio only: convert to ogg/opus (voice note) instead of m4a/aac' })),
  },
  { additionalProperties: false },
);
export type PresignUploadBody = Static<typeof PresignUploadBody>;

export const FinalizeUploadBody = Type.Object({ media_id: Id }, { additionalProperties: false });
export type FinalizeUploadBody = Static<typeof FinalizeUploadBody>;

export const PresignDownloadQuery = Type.Object({
  media_id: Id,
  variant: Type.Optional(Type.Union([Type.Literal('optimized'), Type.Literal('original')], { description: 'Default: optimized' })),
});
export type PresignDownloadQuery = Static<typeof PresignDownloadQuery>;

export const PublicQuery = Type.Object({ key: Type.String({ minLength: 1, maxLength: 500 }) });

const MediaObject = Type.Object({
  id: Type.Integer(),
  kind: Kind,
  content_type: Type.String(),
  file_name: Type.String(),
  size: Type.Integer(),
  voice_note: Type.Boolean(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('processing'), Type.Literal('ready'), Type.Literal('failed')]),
  error: Type.Union([Type.String(), Type.Null()]),
  processing: Type.Union([Type.Literal('optimized'), Type.Literal('unchanged'), Type.Literal('unprocessed'), Type.Null()]),
  original_key: Type.String(),
  optimized_key: Type.Union([Type.String(), Type.Null()]),
  optimized_content_type: Type.Union([Type.String(), Type.Null()]),
  optimized_size: Type.Union([Type.Integer(), Type.Null()]),
  public_url: Type.Union([Type.String(), Type.Null()], { description: 'Where the optimized version is served once ready' }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});
export type MediaObjectResponse = Static<typeof MediaObject>;

const SignedUrl = Type.Object({
  url: Type.String(),
  method: Type.Union([Type.Literal('PUT'), Type.Literal('GET')]),
  headers: Type.Record(Type.String(), Type.String(), { description: 'Headers to send with the request' }),
  expires_at: Type.String({ format: 'date-time' }),
});
export type SignedUrl = Static<typeof SignedUrl>;

export const PresignUploadResponse = Type.Object({ media: MediaObject, upload: SignedUrl });
export type PresignUploadResponse = Static<typeof PresignUploadResponse>;
export const FinalizeUploadResponse = Type.Object({ media: MediaObject });
export const PresignDownloadResponse = Type.Object({ media: MediaObject, download: SignedUrl });
export type PresignDownloadResponse = Static<typeof PresignDownloadResponse>;
