/**
 * Issue 33, media: nothing a browser executes is accepted, stored bytes are served so that no page of
 * ours can come from them, a finalized object cannot be replaced, per-entity quotas, and presigned URLs
 * that do not follow the `Host` header. Over real HTTP, on the embedded store and on an S3 server.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { makeEntity, makeMember, tokenFor } from '../../helpers/factories.js';
import { listen } from '../../helpers/interactions.js';
import { startS3Server, type S3Server } from '../../platform/storage/s3-server.js';
import { closeListening, fetchBytes, mediaClient, processed } from './media-client.js';
import { pdf, png } from './media-files.js';

const SANDBOX_CSP = "default-src 'none'; sandbox";

let s3: S3Server;
beforeAll(async () => {
  s3 = await startS3Server();
});
afterAll(async () => s3.close());

describe.each([
  ['the embedded local store', () => ({}), 'local'],
  ['an S3-compatible server', () => s3.env, 's3'],
] as const)('media security on %s', (_name, envOf, store) => {
  let t: TestContext;
  let baseUrl: string;
  let client: ReturnType<typeof mediaClient>;

  beforeAll(async () => {
    t = await createTestApp({ env: { ...envOf() } });
    baseUrl = await listen(t.app);
    const entity = await makeEntity(t.database.db);
    client = mediaClient(baseUrl, await tokenFor(t.app, await makeMember(t.database.db, { entityId: entity.id })));
  });
  afterAll(async () => closeListening(t));

  it('refuses at presign every type a browser executes or renders as a page, whatever the kind', async () => {
    for (const content_type of [
      'text/html',
      'application/xhtml+xml',
      'image/svg+xml',
      'application/xml',
      'text/xml',
      'text/javascript',
      'application/javascript',
      'application/octet-stream',
      'application/json',
    ]) {
      for (const kind of [undefined, 'document', 'image'] as const) {
        const res = await client.presign({ file_name: 'x', content_type, size: 10, ...(kind ? { kind } : {}) });
        expect(res.status, `${content_type} as ${kind ?? 'default'}`).toBe(400);
        expect(res.body).toMatchObject({ code: 'media_type_not_allowed', content_type });
      }
    }
    expect((await client.presign({ file_name: 'a.csv', content_type: 'text/csv', size: 10 })).status).toBe(200);
    expect(
      (await client.presign({ file_name: 'a.docx', content_type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', size: 10 })).status,
    ).toBe(200);
  });

  it('serves a document as an attachment, with nosniff and a sandboxing CSP, publicly and through a signed URL', async () => {
    const body = Buffer.from('<html><script>alert(document.domain)</script></html>\n');
    const { id, finalized } = await client.upload(body, { file_name: 'notes.txt', content_type: 'text/plain' });
    expect(finalized.status).toBe(200);
    await processed(t.app);
    const download = await client.download(id);
    expect(download.body.media).toMatchObject({ status: 'ready', processing: 'unchanged' });

    const pub = await fetchBytes(baseUrl, download.body.media.public_url);
    expect(pub.status).toBe(200);
    expect(pub.headers.get('content-type')).toBe('text/plain');
    expect(pub.headers.get('content-disposition')).toBe("attachment; filename*=UTF-8''notes.txt");
    expect(pub.headers.get('x-content-type-options')).toBe('nosniff');
    expect(pub.headers.get('content-security-policy')).toBe(SANDBOX_CSP);

    const signed = await fetchBytes(baseUrl, download.body.download.url);
    expect(signed.status).toBe(200);
    expect(signed.bytes.equals(body)).toBe(true);
    expect(signed.headers.get('content-disposition')).toBe("attachment; filename*=UTF-8''notes.txt");
    if (store === 'local') {
      expect(signed.headers.get('x-content-type-options')).toBe('nosniff');
      expect(signed.headers.get('content-security-policy')).toBe(SANDBOX_CSP);
    }
    const original = await fetchBytes(baseUrl, (await client.download(id, 'original')).body.download.url);
    expect(original.headers.get('content-disposition')).toMatch(/^attachment;/);
  });

  it('serves images inline, still with nosniff and the sandboxing CSP', async () => {
    const { id } = await client.upload(await png(), { file_name: 'logo.png', content_type: 'image/png' });
    await processed(t.app);
    const download = await client.download(id);
    const pub = await fetchBytes(baseUrl, download.body.media.public_url);
    expect(pub.headers.get('content-disposition')).toMatch(/^inline;/);
    expect(pub.headers.get('x-content-type-options')).toBe('nosniff');
    expect(pub.headers.get('content-security-policy')).toBe(SANDBOX_CSP);
    expect(pub.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    expect((await fetchBytes(baseUrl, download.body.download.url)).headers.get('content-disposition')).toMatch(/^inline;/);
  });

  it('keeps a finalized object as it was validated: the upload URL cannot replace what is served', async () => {
    const document = pdf();
    const presigned = await client.presign({ file_name: 'contrato.pdf', content_type: 'application/pdf', size: document.length });
    const { url, method, headers } = presigned.body.upload;
    expect((await fetch(url, { method, headers, body: document })).status).toBe(200);
    expect((await client.finalize(presigned.body.media.id)).body.media.status).toBe('processing');
    await processed(t.app);

    const swap = Buffer.alloc(document.length, 0x41);
    const again = await fetch(url, { method, headers, body: swap });
    if (store === 'local') {
      expect(again.status).toBe(409);
      expect(await again.json()).toMatchObject({ code: 'upload_closed' });
    } else {
      // S3 cannot revoke a presigned URL: the PUT lands on the upload key, which nothing reads any more.
      await again.arrayBuffer();
    }
    expect((await client.finalize(presigned.body.media.id)).body.media.status).toBe('ready');
    const download = await client.download(presigned.body.media.id);
    for (const target of [
      download.body.media.public_url,
      download.body.download.url,
      (await client.download(presigned.body.media.id, 'original')).body.download.url,
    ]) {
      const served = await fetchBytes(baseUrl, target);
      expect(served.status).toBe(200);
      expect(served.bytes.equals(document)).toBe(true);
      expect(Number(served.headers.get('content-length'))).toBe(document.length);
    }
  });

  it('signs upload URLs for the address the service listens on, not for the Host header', async () => {
    // node:http, so that the Host header is sent exactly as written.
    const payload = JSON.stringify({ file_name: 'a.png', content_type: 'image/png', size: 10 });
    const authorization = await bearer();
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        `${baseUrl}/api/media/presign-upload`,
        {
          method: 'POST',
          headers: { authorization, host: 'attacker.example', 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
        },
        (res) => {
          let body = '';
          res
            .setEncoding('utf8')
            .on('data', (c: string) => (body += c))
            .on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject).end(payload);
    });
    expect(answer.status).toBe(200);
    const url = (JSON.parse(answer.body) as { upload: { url: string } }).upload.url;
    expect(url).not.toContain('attacker.example');
    if (store === 'local') expect(url.startsWith(`${baseUrl}/media/objects/uploads/`)).toBe(true);
  });

  async function bearer(): Promise<string> {
    const entity = await makeEntity(t.database.db);
    return `Bearer ${await tokenFor(t.app, await makeMember(t.database.db, { entityId: entity.id }))}`;
  }
});

describe('media quotas per entity', () => {
  let t: TestContext;
  let baseUrl: string;

  beforeAll(async () => {
    t = await createTestApp({ env: { MEDIA_QUOTA_BYTES_PER_ENTITY: '1000', MEDIA_QUOTA_UPLOADS_PER_DAY: '3' } });
    baseUrl = await listen(t.app);
  });
  afterAll(async () => closeListening(t));

  const member = async () => mediaClient(baseUrl, await tokenFor(t.app, await makeMember(t.database.db, { entityId: (await makeEntity(t.database.db)).id })));

  it('refuses an upload that would pass the byte quota with 403 media_quota_exceeded; failed uploads free their bytes', async () => {
    const client = await member();
    expect((await client.presign({ file_name: 'a.pdf', content_type: 'application/pdf', size: 600 })).status).toBe(200);
    const over = await client.presign({ file_name: 'b.pdf', content_type: 'application/pdf', size: 401 });
    expect(over.status).toBe(403);
    expect(over.headers.get('content-type')).toContain('application/problem+json');
    expect(over.body).toMatchObject({ code: 'media_quota_exceeded', limit_bytes: 1000, used_bytes: 600, size: 401 });
    expect((await client.presign({ file_name: 'c.pdf', content_type: 'application/pdf', size: 400 })).status).toBe(200);

    // Another entity has its own quota.
    expect((await (await member()).presign({ file_name: 'd.pdf', content_type: 'application/pdf', size: 1000 })).status).toBe(200);

    // A failed upload (size mismatch) no longer counts.
    const spare = await member();
    const wrong = await spare.upload(pdf(), { file_name: 'e.pdf', content_type: 'application/pdf', size: 900 });
    expect(wrong.finalized.body).toMatchObject({ code: 'upload_size_mismatch' });
    expect((await spare.presign({ file_name: 'f.pdf', content_type: 'application/pdf', size: 900 })).status).toBe(200);
  });

  it('refuses the uploads of an entity past its daily count with 429 media_upload_limit_reached and Retry-After', async () => {
    const client = await member();
    for (let i = 0; i < 3; i++) expect((await client.presign({ file_name: `${i}.pdf`, content_type: 'application/pdf', size: 10 })).status).toBe(200);
    const fourth = await client.presign({ file_name: '3.pdf', content_type: 'application/pdf', size: 10 });
    expect(fourth.status).toBe(429);
    expect(fourth.body).toMatchObject({ code: 'media_upload_limit_reached', limit_uploads: 3 });
    const retryAfter = Number(fourth.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(86_000);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    expect((await (await member()).presign({ file_name: 'x.pdf', content_type: 'application/pdf', size: 10 })).status).toBe(200);
  });
});
