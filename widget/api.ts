/**
 * The visitor API (`/api/widget/:website_token/*`, docs/api/interactions.md "Website chat") as the widget calls it.
 * A refusal throws `ApiError` with the HTTP status and the problem's `code`; a request that never got an answer
 * (offline, connection dropped) throws one with status 0 and code `network`.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
  ) {
    super(code);
  }
  /** Worth sending again unchanged: no answer, a server error, or too fast (429). */
  get transient(): boolean {
    return this.status === 0 || this.status === 429 || this.status >= 500;
  }
}

export type Call = <T>(method: 'GET' | 'POST', path: string, body?: unknown, token?: string) => Promise<T>;

export function createApi(base: string, websiteToken: string): Call {
  const root = `${base}/api/widget/${encodeURIComponent(websiteToken)}`;
  return async <T>(method: 'GET' | 'POST', path: string, body?: unknown, token?: string): Promise<T> => {
    const headers: Record<string, string> = {};
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (token) headers.authorization = `Bearer ${token}`;
    let res: Response;
    try {
      res = await fetch(`${root}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), mode: 'cors' });
    } catch {
      throw new ApiError(0, 'network');
    }
    if (!res.ok) {
      const problem = (await res.json().catch(() => ({}))) as { code?: unknown };
      throw new ApiError(res.status, typeof problem.code === 'string' ? problem.code : `http_${res.status}`);
    }
    return (res.status === 204 ? null : await res.json()) as T;
  };
}

/**
 * PUTs `file` to a presigned upload, reporting progress (0..1) as bytes leave (fetch cannot); ApiError on failure.
 */
export function putWithProgress(
  upload: { url: string; method: string; headers: Record<string, string> },
  file: Blob,
  progress: (done: number) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(upload.method, upload.url);
    for (const [k, v] of Object.entries(upload.headers)) xhr.setRequestHeader(k, v);
    xhr.upload.onprogress = (e) => e.lengthComputable && progress(e.loaded / e.total);
    xhr.onload = () => (xhr.status >= 200 && xhr.status < 300 ? resolve() : reject(new ApiError(xhr.status, `http_${xhr.status}`)));
    xhr.onerror = () => reject(new ApiError(0, 'network'));
    xhr.send(file);
  });
}
