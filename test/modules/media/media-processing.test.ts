import { execFile } from 'node:child_process';
import { transaction } from '../../../src/platform/transactions/transaction.js';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../../helpers/test-app.js';
import { bearer, makeEntity, makeMember, tokenFor } from '../../helpers/factories.js';
import { listen } from '../../helpers/interactions.js';
import { makeContact } from '../../helpers/records-factories.js';
import { closeListening, fetchBytes, mediaClient, processed } from './media-client.js';
import { makeMedia } from './media-factories.js';
import { hasFfmpeg, pdf, png, probe, wavTone, webmVideo } from './media-files.js';

async function start(env: Record<string, string> = {}, startQueue = false) {
  const t = await createTestApp({ env, startQueue });
  const baseUrl = await listen(t.app);
  const entity = await makeEntity(t.database.db);
  const member = await makeMember(t.database.db, {
    entityId: entity.id,
    codes: ['contacts.edit', 'contacts.view', 'custom_fields.create', 'custom_field_groups.create'],
  });
  const token = await tokenFor(t.app, member);
  return { t, baseUrl, entityId: entity.id, token, client: mediaClient(baseUrl, token), close: () => closeListening(t) };
}

/** Uploads through the whole flow, waits for processing, and returns the media and its optimized bytes. */
async function through(
  s: Awaited<ReturnType<typeof start>>,
  file: Buffer,
  declared: { file_name: string; content_type: string; kind?: string; voice_note?: boolean },
) {
  const { id, finalized } = await s.client.upload(file, declared);
  expect(finalized.status).toBe(200);
  await processed(s.t.app);
  const download = await s.client.download(id);
  expect(download.status).toBe(200);
  return { media: download.body.media, bytes: (await fetchBytes(s.baseUrl, download.body.download.url)).bytes };
}

describe('media processing with ffmpeg and sharp', () => {
  let s: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => {
    s = await start();
  });
  afterAll(async () => s.close());

  // Without ffmpeg on PATH the conversions are reported as skipped; `.ci/run` installs it, so CI runs them.
  it.skipIf(!hasFfmpeg)('converts a voice note to ogg/opus and other audio to m4a/aac', async () => {
    const wav = await wavTone(1);
    const voice = await through(s, wav, { file_name: 'nota.wav', content_type: 'audio/wav', voice_note: true });
    expect(voice.media).toMatchObject({ status: 'ready', processing: 'optimized', optimized_content_type: 'audio/ogg', voice_note: true });
    expect(await probe(voice.bytes)).toMatchObject({ format: 'ogg', codecs: ['opus'] });
    const song = await through(s, wav, { file_name: 'song.wav', content_type: 'audio/wav' });
    expect(song.media).toMatchObject({ optimized_content_type: 'audio/mp4' });
    expect((await probe(song.bytes)).codecs).toEqual(['aac']);
  });

  it.skipIf(!hasFfmpeg)('converts video to mp4 H.264/AAC with even dimensions and the moov atom before the media data', async () => {
    const { media, bytes } = await through(s, await webmVideo(1), { file_name: 'clip.webm', content_type: 'video/webm' });
    expect(media).toMatchObject({ status: 'ready', optimized_content_type: 'video/mp4' });
    const info = await probe(bytes);
    expect(info.format).toContain('mp4');
    expect(info.codecs.sort()).toEqual(['aac', 'h264']);
    expect(bytes.indexOf('moov')).toBeGreaterThan(0);
    expect(bytes.indexOf('moov')).toBeLessThan(bytes.indexOf('mdat'));
    const meta = await sharp(await fetchFrame(bytes)).metadata();
    expect([meta.width, meta.height]).toEqual([320, 240]);
  });

  it('stores documents unchanged and turns stickers into 512×512 WebP', async () => {
    const doc = pdf();
    const stored = await through(s, doc, { file_name: 'contrato.pdf', content_type: 'application/pdf' });
    expect(stored.media).toMatchObject({ kind: 'document', processing: 'unchanged', optimized_content_type: 'application/pdf' });
    expect(stored.media.optimized_key).toBe(stored.media.original_key);
    expect(stored.bytes.equals(doc)).toBe(true);
    const sticker = await through(s, await png(100, 60), { file_name: 's.png', content_type: 'image/png', kind: 'sticker' });
    expect(await sharp(sticker.bytes).metadata()).toMatchObject({ format: 'webp', width: 512, height: 512 });
  });

  it('processes a job idempotently and marks an object whose original is gone as failed without retrying', async () => {
    const { id } = await s.client.upload(await png(), { file_name: 'a.png', content_type: 'image/png' });
    await processed(s.t.app);
    const before = (await s.client.download(id)).body.media;
    await transaction(s.t.database.db, (unit) => s.t.app.media.jobs.dispatch(unit, id));
    await processed(s.t.app);
    expect((await s.client.download(id)).body.media).toEqual(before);

    const orphan = await makeMedia(s.t.database.db, { entityId: s.entityId, status: 'processing' });
    await transaction(s.t.database.db, (unit) => s.t.app.media.jobs.dispatch(unit, orphan.id));
    await processed(s.t.app);
    expect((await s.client.finalize(orphan.id)).body.media).toMatchObject({ status: 'failed', error: 'The uploaded file no longer exists' });
  });

  it('gives a custom field of kind image a ready image and reads it back with a short-lived URL; anything else is 400', async () => {
    const api = (method: 'POST' | 'PUT' | 'GET', url: string, payload?: object) =>
      s.t.app.inject({ method, url, headers: bearer(s.token), ...(payload ? { payload } : {}) });
    const group = (await api('POST', '/custom-field-groups', { name: 'Fotos', record_type: 'contact' })).json().id;
    const field = (await api('POST', '/custom-fields', { custom_field_group_id: group, name: 'Foto', type: 'image' })).json().id;
    const pdfField = (await api('POST', '/custom-fields', { custom_field_group_id: group, name: 'Contrato', type: 'pdf' })).json().id;
    const contact = await makeContact(s.t.database.db, { entityId: s.entityId });
    const image = await through(s, await png(), { file_name: 'p.png', content_type: 'image/png' });
    const document = await through(s, pdf(), { file_name: 'c.pdf', content_type: 'application/pdf' });
    const pending = (await s.client.presign({ file_name: 'x.png', content_type: 'image/png', size: 10 })).body.media.id;
    const foreign = await makeMedia(s.t.database.db, { entityId: (await makeEntity(s.t.database.db)).id });
    const url = `/contacts/${contact.id}/custom-field-values`;

    const bad = await api('PUT', url, {
      values: [
        { custom_field_id: field, value: { media_id: document.media.id } },
        { custom_field_id: field, value: { media_id: pending } },
        { custom_field_id: field, value: { media_id: foreign.id } },
        { custom_field_id: pdfField, value: { media_id: image.media.id } },
      ],
    });
    expect(bad.json()).toMatchObject({ status: 400, code: 'validation_failed' });
    expect(bad.json().errors.map((e: { message: string }) => e.message)).toEqual([
      `media ${document.media.id} is not a image`,
      `media ${pending} is pending, not ready`,
      `media ${foreign.id} not found`,
      `media ${image.media.id} is not a PDF document`,
    ]);

    const ok = await api('PUT', url, {
      values: [
        { custom_field_id: field, value: { media_id: image.media.id } },
        { custom_field_id: pdfField, value: { media_id: document.media.id } },
      ],
    });
    expect(ok.statusCode).toBe(200);
    const read = (await api('GET', url)).json().data.find((v: { custom_field_id: number }) => v.custom_field_id === field);
    expect(read.value).toMatchObject({ media_id: image.media.id, url: expect.any(String), expires_at: expect.any(String) });
    expect(Date.parse(read.value.expires_at) - Date.now()).toBeLessThanOrEqual(5 * 60_000);
    const fetched = await fetchBytes(s.baseUrl, read.value.url.replace(/^http:\/\/[^/]+/, ''));
    expect(fetched.bytes.equals(image.bytes)).toBe(true);
  });
});

/** The first frame of an mp4 as PNG (ffmpeg), to read its dimensions. */
async function fetchFrame(mp4: Buffer): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), 'frame-'));
  try {
    await writeFile(join(dir, 'in.mp4'), mp4);
    await promisify(execFile)('ffmpeg', ['-loglevel', 'error', '-i', join(dir, 'in.mp4'), '-frames:v', '1', join(dir, 'f.png')]);
    return await readFile(join(dir, 'f.png'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('media processing without ffmpeg', () => {
  let s: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => {
    s = await start({ MEDIA_FFMPEG_PATH: '/nonexistent/ffmpeg' });
  });
  afterAll(async () => s.close());

  it('keeps audio and video unchanged and marks them unprocessed, while images are still optimized', async () => {
    const wav = await wavTone(1);
    const audio = await through(s, wav, { file_name: 'a.wav', content_type: 'audio/wav' });
    expect(audio.media).toMatchObject({ status: 'ready', processing: 'unprocessed', optimized_content_type: 'audio/wav' });
    expect(audio.bytes.equals(wav)).toBe(true);
    expect((await through(s, await png(), { file_name: 'p.png', content_type: 'image/png' })).media).toMatchObject({ processing: 'optimized' });
  });
});

describe('media processing on the durable queue', () => {
  let s: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => {
    s = await start({ MEDIA_INLINE_WORKER_ENABLED: 'false', MEDIA_ORIGINAL_RETENTION_DAYS: '1' }, true);
  });
  afterAll(async () => s.close());

  it('processes a finalized upload through pg-boss', async () => {
    const { id, finalized } = await s.client.upload(await png(300, 200), { file_name: 'q.png', content_type: 'image/png' });
    expect(finalized.body.media.status).toBe('processing');
    let media: { status: string } = finalized.body.media;
    for (let i = 0; i < 100 && media.status === 'processing'; i++) {
      await new Promise((r) => setTimeout(r, 200));
      media = (await s.client.finalize(id)).body.media;
    }
    expect(media).toMatchObject({ status: 'ready', processing: 'optimized', optimized_content_type: 'image/jpeg' });
  });

  it('housekeeping removes stale uploads, expired originals and re-dispatches stalled processing', async () => {
    const stale = await s.client.presign({ file_name: 's.pdf', content_type: 'application/pdf', size: pdf().length });
    expect((await fetchBytes(s.baseUrl, stale.body.upload.url, stale.body.upload.headers, { method: 'PUT', body: pdf() })).status).toBe(200);
    const kept = await s.client.upload(await png(), { file_name: 'k.png', content_type: 'image/png' });
    await s.t.app.media.jobs.idle();
    const stalled = await makeMedia(s.t.database.db, { entityId: s.entityId, status: 'processing' });
    for (let i = 0; i < 100 && (await s.client.finalize(kept.id)).body.media.status !== 'ready'; i++) await new Promise((r) => setTimeout(r, 200));

    const storage = s.t.app.media.storage;
    const report = await s.t.app.media.housekeeping.run(new Date(Date.now() + 2 * 86_400_000));
    // The earlier test's image is past retention too.
    expect(report).toMatchObject({ removedUploads: 1, removedOriginals: 2 });
    expect(report.redispatched).toBeGreaterThanOrEqual(1);
    expect(await storage.head(stale.body.media.original_key)).toBeUndefined();
    expect((await s.client.finalize(stale.body.media.id)).status).toBe(404);
    expect((await s.client.download(kept.id, 'original')).body).toMatchObject({ code: 'original_removed' });
    const media = (await s.client.download(kept.id)).body.media;
    expect((await fetchBytes(s.baseUrl, media.public_url)).status).toBe(200);
    let status = 'processing';
    for (let i = 0; i < 100 && status === 'processing'; i++) {
      await new Promise((r) => setTimeout(r, 200));
      status = (await s.client.finalize(stalled.id)).body.media.status;
    }
    expect(status).toBe('failed');
  });
});
