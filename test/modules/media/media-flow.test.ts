import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { makeEntity, makeMember, tokenFor } from '../../helpers/factories.js';
import { captureEvents, connectSocket, listen, waitFor } from '../../helpers/interactions.js';
import { startS3Server, type S3Server } from '../../platform/storage/s3-server.js';
import { closeListening, fetchBytes, mediaClient, processed } from './media-client.js';
import { hasGpsIfd, jpegWithExif, pdf, png } from './media-files.js';

let s3: S3Server;
beforeAll(async () => {
  s3 = await startS3Server();
});
afterAll(async () => s3.close());

describe.each([
  ['the embedded local store', () => ({})],
  ['an S3-compatible server', () => s3.env],
])('the upload flow on %s', (_name, envOf) => {
  let t: TestContext;
  let baseUrl: string;
  let client: ReturnType<typeof mediaClient>;
  let other: ReturnType<typeof mediaClient>;
  let token: string;
  let jpeg: Buffer;
  const events = () => captureEvents(t.app, ['media.processed']);
  let seen: ReturnType<typeof events>;

  beforeAll(async () => {
    t = await createTestApp({ env: { MEDIA_IMAGE_MAX_EDGE: '600', ...envOf() } });
    baseUrl = await listen(t.app);
    const entity = await makeEntity(t.database.db);
    token = await tokenFor(t.app, await makeMember(t.database.db, { entityId: entity.id }));
    client = mediaClient(baseUrl, token);
    const stranger = await makeEntity(t.database.db);
    other = mediaClient(baseUrl, await tokenFor(t.app, await makeMember(t.database.db, { entityId: stranger.id })));
    jpeg = await jpegWithExif(1200, 800);
    seen = events();
  });
  afterAll(async () => closeListening(t));

  it('presigns, uploads, finalizes, optimizes an image (oriented, resized, EXIF and GPS gone) and serves it privately and publicly', async () => {
    const input = await sharp(jpeg).metadata();
    expect(input.orientation).toBe(6);
    expect(hasGpsIfd(input.exif)).toBe(true);
    const { socket, events: socketEvents } = await connectSocket(baseUrl, { token });
    try {
      const { id, presigned, finalized } = await client.upload(jpeg, { file_name: 'Foto de la visita.jpg', content_type: 'image/jpeg' });
      expect(presigned.media).toMatchObject({ id, kind: 'image', status: 'pending', size: jpeg.length });
      expect(presigned.media.original_key).toMatch(new RegExp(`^media/\\d+/[0-9a-f-]{36}/original$`));
      expect(Date.parse(presigned.upload.expires_at) - Date.now()).toBeLessThanOrEqual(15 * 60_000);
      expect(finalized.status).toBe(200);
      expect(finalized.body.media).toMatchObject({ id, status: 'processing' });
      await processed(t.app);

      const download = await client.download(id);
      expect(download.status).toBe(200);
      expect(download.body.media).toMatchObject({ status: 'ready', processing: 'optimized', optimized_content_type: 'image/jpeg' });
      const optimized = await fetchBytes(baseUrl, download.body.download.url);
      expect(optimized.status).toBe(200);
      const meta = await sharp(optimized.bytes).metadata();
      expect(meta).toMatchObject({ format: 'jpeg', width: 400, height: 600 });
      expect(meta.exif).toBeUndefined();
      expect(optimized.bytes.includes(Buffer.from('CRM-Test-Cam'))).toBe(false);
      expect(optimized.bytes.length).toBeLessThan(jpeg.length);

      const original = await fetchBytes(baseUrl, (await client.download(id, 'original')).body.download.url);
      expect(original.bytes.equals(jpeg)).toBe(true);

      const pub = await fetchBytes(baseUrl, download.body.media.public_url);
      expect(pub.status).toBe(200);
      expect(pub.bytes.equals(optimized.bytes)).toBe(true);
      expect(pub.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      // The document declares what the route serves, so a validating proxy lets it through (issue 47).
      expect(pub.headers.get('content-type')).toBe('image/jpeg');
      const declared = (await t.app.inject('/openapi.json')).json<Doc>().paths['/api/media/public']!.get.responses['200']!.content;
      expect(Object.keys(declared)).toEqual(
        expect.arrayContaining(['image/jpeg', 'image/webp', 'audio/ogg', 'video/mp4', 'application/pdf', 'application/octet-stream']),
      );
      const etag = pub.headers.get('etag')!;
      expect(etag).toMatch(/^"[0-9a-f]{64}"$/);
      expect((await fetchBytes(baseUrl, download.body.media.public_url, { 'if-none-match': etag })).status).toBe(304);

      expect(seen).toContainEqual({ name: 'media.processed', payload: expect.objectContaining({ mediaId: id, status: 'ready', kind: 'image' }) });
      await waitFor(() => socketEvents.find((e) => e.name === 'interaction.media.processed' && e.payload.media_id === id));
    } finally {
      socket.disconnect();
    }
  });

  it("answers 404 for another entity's media, for download, finalize and its keys on the public route", async () => {
    const { id } = await client.upload(await png(), { file_name: 'a.png', content_type: 'image/png' });
    await processed(t.app);
    const download = await client.download(id);
    expect((await other.download(id)).body).toMatchObject({ status: 404, code: 'not_found' });
    expect((await other.finalize(id)).status).toBe(404);
    expect((await other.call('GET', `/api/media/public?key=${encodeURIComponent(download.body.media.original_key + 'x')}`)).body).toMatchObject({
      code: 'not_found',
    });
    const pending = await client.presign({ file_name: 'b.png', content_type: 'image/png', size: 10 });
    expect((await client.call('GET', `/media/public?key=${encodeURIComponent(pending.body.media.original_key)}`)).status).toBe(404);
  });

  it('refuses a size mismatch at finalize, removes the upload and processes nothing', async () => {
    const before = seen.length;
    const { id, finalized } = await client.upload(jpeg, { file_name: 'x.jpg', content_type: 'image/jpeg', size: jpeg.length + 100 });
    expect(finalized.status).toBe(400);
    expect(finalized.body).toMatchObject({ code: 'upload_size_mismatch', declared_size: jpeg.length + 100, uploaded_size: jpeg.length });
    await processed(t.app);
    expect(seen.length).toBe(before);
    expect((await client.download(id, 'optimized')).body).toMatchObject({ code: 'media_not_ready', status: 409, media_status: 'failed' });
    expect((await client.finalize(id)).body.media).toMatchObject({ status: 'failed', error: expect.stringContaining('Declared') });
  });

  it('refuses bytes whose sniffed type is not the declared one and processes nothing', async () => {
    const before = seen.length;
    const asJpeg = await client.upload(await png(), { file_name: 'x.jpg', content_type: 'image/jpeg' });
    expect(asJpeg.finalized.body).toMatchObject({
      status: 400,
      code: 'upload_type_mismatch',
      declared_content_type: 'image/jpeg',
      detected_content_type: 'image/png',
    });
    const pdfAsText = await client.upload(pdf(), { file_name: 'notes.txt', content_type: 'text/plain' });
    expect(pdfAsText.finalized.body).toMatchObject({ code: 'upload_type_mismatch', detected_content_type: 'application/pdf' });
    await processed(t.app);
    expect(seen.length).toBe(before);
  });
});

describe('presign and finalize rules', () => {
  let t: TestContext;
  let client: ReturnType<typeof mediaClient>;
  let baseUrl: string;
  beforeAll(async () => {
    t = await createTestApp();
    baseUrl = await listen(t.app);
    const entity = await makeEntity(t.database.db);
    client = mediaClient(baseUrl, await tokenFor(t.app, await makeMember(t.database.db, { entityId: entity.id })));
  });
  afterAll(async () => closeListening(t));

  it('refuses sizes over the WhatsApp limit of each kind with media_too_large', async () => {
    const MB = 1024 * 1024;
    for (const [content_type, kind, limit] of [
      ['image/jpeg', 'image', 5 * MB],
      ['audio/mpeg', 'audio', 16 * MB],
      ['video/mp4', 'video', 16 * MB],
      ['application/pdf', 'document', 100 * MB],
      ['image/webp', 'sticker', 500 * 1024],
    ] as const) {
      expect((await client.presign({ file_name: 'f', content_type, kind, size: limit })).status).toBe(200);
      expect((await client.presign({ file_name: 'f', content_type, kind, size: limit + 1 })).body).toMatchObject({
        status: 400,
        code: 'media_too_large',
        kind,
        limit_bytes: limit,
      });
    }
  });

  it('refuses a content type its kind does not take, and voice_note outside audio', async () => {
    expect((await client.presign({ file_name: 'f', content_type: 'video/mp4', kind: 'image', size: 10 })).body).toMatchObject({
      code: 'media_type_not_allowed',
    });
    expect((await client.presign({ file_name: 'f', content_type: 'image/png', kind: 'document', size: 10 })).body).toMatchObject({
      code: 'media_type_not_allowed',
    });
    expect((await client.presign({ file_name: 'f', content_type: 'image/png', voice_note: true, size: 10 })).body).toMatchObject({
      code: 'validation_failed',
      errors: [{ field: '/body/voice_note' }],
    });
    expect((await client.presign({ file_name: 'f', content_type: 'not a type', size: 10 })).body).toMatchObject({ code: 'validation_failed' });
  });

  it('answers 409 upload_missing when nothing was uploaded, 404 for an unknown id, 401 without a token', async () => {
    const presigned = await client.presign({ file_name: 'f.pdf', content_type: 'application/pdf', size: 10 });
    expect((await client.finalize(presigned.body.media.id)).body).toMatchObject({ status: 409, code: 'upload_missing' });
    expect((await client.finalize(999_999)).body).toMatchObject({ status: 404, code: 'not_found' });
    const anonymous = await t.app.inject({ method: 'POST', url: '/media/presign-upload', payload: { file_name: 'f', content_type: 'image/png', size: 1 } });
    expect(anonymous.json()).toMatchObject({ status: 401, code: 'unauthenticated' });
  });
});

interface Doc {
  paths: Record<string, { get: { responses: Record<string, { content: Record<string, unknown> }> } }>;
}
