import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createObjectStorage, type ObjectStorage } from '../../../src/platform/storage/index.js';
import { createTestApp, testConfig, TEST_JWT_SECRET, type TestContext } from '../../helpers/test-app.js';
import { listen } from '../../helpers/interactions.js';
import { startS3Server, type S3Server } from './s3-server.js';

let s3: S3Server;
let local: TestContext;
let localOrigin: string;
beforeAll(async () => {
  s3 = await startS3Server();
  local = await createTestApp();
  localOrigin = await listen(local.app);
});
afterAll(async () => {
  await local.close();
  await s3.close();
});

const stores: [string, () => ObjectStorage, () => string | undefined][] = [
  ['local disk (served by the service)', () => local.app.media.storage, () => localOrigin],
  ['S3 (s3rver)', () => createObjectStorage(testConfig(s3.env), TEST_JWT_SECRET), () => undefined],
];

describe.each(stores)('object storage on %s', (_name, storeOf, originOf) => {
  it('accepts a presigned PUT over plain HTTP, then heads, reads ranges and serves a presigned GET', async () => {
    const store = storeOf();
    const key = `media/1/${crypto.randomUUID()}/original`;
    const body = Buffer.from('hello, object storage');
    const put = await store.presignUpload(key, { contentType: 'text/plain', size: body.length, expiresInSeconds: 60, origin: originOf() });
    const uploaded = await fetch(put.url, { method: 'PUT', headers: put.headers, body });
    expect(uploaded.status).toBe(200);
    await uploaded.arrayBuffer();
    expect(await store.head(key)).toMatchObject({ size: body.length });
    expect(await text(await store.read(key, { start: 7, end: 12 }))).toBe('object');
    const get = await store.presignDownload(key, { expiresInSeconds: 60, fileName: 'hello.txt', contentType: 'text/plain', origin: originOf() });
    const downloaded = await fetch(get.url);
    expect(downloaded.status).toBe(200);
    expect(await downloaded.text()).toBe('hello, object storage');
    expect(downloaded.headers.get('content-disposition')).toContain('hello.txt');
  });

  it('writes a stream of known size, deletes it, and reports a missing key as absent', async () => {
    const store = storeOf();
    const key = `media/1/${crypto.randomUUID()}/optimized.bin`;
    const chunks = Array.from({ length: 64 }, (_, i) => Buffer.alloc(16 * 1024, i));
    await store.write(key, Readable.from(chunks), { contentType: 'application/octet-stream', size: 64 * 16 * 1024 });
    expect(await store.head(key)).toMatchObject({ size: 64 * 16 * 1024 });
    const tail = Buffer.concat(await (await store.read(key, { start: 64 * 16 * 1024 - 2, end: 64 * 16 * 1024 - 1 })).toArray());
    expect([...tail]).toEqual([63, 63]);
    await store.delete(key);
    expect(await store.head(key)).toBeUndefined();
    await store.delete(key);
  });

  it('refuses an expired upload URL and stores nothing', async () => {
    const store = storeOf();
    const key = `media/1/${crypto.randomUUID()}/original`;
    const put = await store.presignUpload(key, { contentType: 'text/plain', size: 3, expiresInSeconds: 1, origin: originOf() });
    await new Promise((r) => setTimeout(r, 2100));
    const res = await fetch(put.url, { method: 'PUT', headers: put.headers, body: 'abc' });
    expect(res.status).toBe(403);
    await res.arrayBuffer();
    expect(await store.head(key)).toBeUndefined();
  });
});

describe('the embedded store endpoints', () => {
  const store = () => local.app.media.storage;

  it('answer problem+json url_expired, invalid_signature and upload_too_large, never storing the refused body', async () => {
    const key = `media/1/${crypto.randomUUID()}/original`;
    const put = await store().presignUpload(key, { contentType: 'text/plain', size: 4, expiresInSeconds: 60, origin: localOrigin });
    const tampered = put.url.replace('size=4', 'size=9999');
    const bad = await fetch(tampered, { method: 'PUT', headers: put.headers, body: 'abcd' });
    expect(bad.status).toBe(403);
    expect(await bad.json()).toMatchObject({ code: 'invalid_signature' });
    const wrongType = await fetch(put.url, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: 'abcd' });
    expect(await wrongType.json()).toMatchObject({ code: 'invalid_signature' });
    const tooLarge = await fetch(put.url, { method: 'PUT', headers: put.headers, body: 'abcdefgh' });
    expect(tooLarge.status).toBe(413);
    expect(await tooLarge.json()).toMatchObject({ code: 'upload_too_large' });
    expect(await store().head(key)).toBeUndefined();

    const expired = await store().presignDownload(key, { expiresInSeconds: -1, origin: localOrigin });
    const res = await fetch(expired.url);
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(await res.json()).toMatchObject({ code: 'url_expired' });
  });

  it('keeps keys inside the store: a key with .. is not found', async () => {
    const config = testConfig();
    const s = createObjectStorage(config, TEST_JWT_SECRET);
    expect(await s.head('media/1/../../etc/passwd')).toBeUndefined();
    await expect(s.presignUpload('../x', { contentType: 'text/plain', size: 1, expiresInSeconds: 60 })).rejects.toThrow();
  });
});
