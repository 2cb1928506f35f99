/** The client side of the upload flow over real HTTP: the API with a token, uploads to presigned URLs. */
import type { App } from '../../../src/app.js';
import type { TestContext } from '../../helpers/test-app.js';

export interface ApiResponse {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are asserted field by field
  body: any;
}

export function mediaClient(baseUrl: string, token: string) {
  async function call(method: string, path: string, body?: unknown): Promise<ApiResponse> {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text && /json/.test(res.headers.get('content-type') ?? '') ? JSON.parse(text) : text };
  }
  return {
    call,
    presign: (body: object) => call('POST', '/api/media/presign-upload', body),
    finalize: (mediaId: number) => call('POST', '/api/media/finalize-upload', { media_id: mediaId }),
    download: (mediaId: number, variant?: string) => call('GET', `/api/media/presign-download?media_id=${mediaId}${variant ? `&variant=${variant}` : ''}`),
    /** Presigns, uploads `file` with plain HTTP and finalizes; returns the finalize response and the media id. */
    async upload(file: Buffer, declared: { file_name: string; content_type: string; kind?: string; voice_note?: boolean; size?: number }) {
      const presigned = await call('POST', '/api/media/presign-upload', { size: file.length, ...declared });
      if (presigned.status !== 200) throw new Error(`presign ${presigned.status} ${JSON.stringify(presigned.body)}`);
      const { url, method, headers } = presigned.body.upload;
      const put = await fetch(url, { method, headers, body: file });
      const answer = await put.text();
      if (put.status !== 200) throw new Error(`upload ${put.status} ${answer}`);
      return {
        id: presigned.body.media.id as number,
        presigned: presigned.body,
        finalized: await call('POST', '/api/media/finalize-upload', { media_id: presigned.body.media.id }),
      };
    },
  };
}

/** Fetches a URL the API returned (absolute, or relative to the service). */
export async function fetchBytes(
  baseUrl: string,
  url: string,
  headers: Record<string, string> = {},
  init: { method?: string; body?: Buffer } = {},
): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  const res = await fetch(url.startsWith('/') ? `${baseUrl}${url}` : url, { headers, ...init });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** Waits until inline processing settled. */
export const processed = (app: App) => app.media.jobs.idle();

/**
 * Closes a listening test app. fetch keeps connections alive after every response was read; the HTTP
 * server's close waits for them, so they are dropped first (no request is pending by then).
 */
export async function closeListening(t: TestContext): Promise<void> {
  await processed(t.app);
  t.app.server.closeAllConnections();
  await t.close();
}
