/**
 * Local-disk object storage under `root` (`DATA_DIR/media`), the embedded default. Its presigned URLs
 * point at the service itself (`/media/objects/<key>`, served by `local.routes.ts`) and carry an
 * HMAC-SHA256 signature over method, key, expiry and the signed parameters, so the six-step upload flow
 * (SPEC "Media") works with nothing else running. Writes go to a temporary file renamed into place, so a
 * reader never sees half an object.
 */
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { copyFile, mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ObjectNotFoundError, isValidObjectKey, type ObjectStorage, type PresignedUrl } from './storage.js';

/** Path prefix of the URLs the local store signs. */
export const LOCAL_OBJECTS_PATH = '/media/objects';

/** The signed parameters of a local URL (all strings, as they travel in the query). */
export interface LocalGrant {
  method: 'PUT' | 'GET';
  key: string;
  /** Unix seconds. */
  expires: string;
  /** PUT: the content type and size the upload is signed for; GET: the type and file name it is served with. */
  contentType: string;
  size: string;
  fileName: string;
  /** GET: `inline` or `attachment`; PUT: empty. */
  disposition: string;
}

export interface LocalStorage extends ObjectStorage {
  readonly kind: 'local';
  /** The directory holding the objects. */
  readonly root: string;
  /** Checks a grant's signature (constant time); expiry is the caller's check. */
  verify(grant: LocalGrant, signature: string): boolean;
  /** Absolute path of `key` (for streaming uploads in). */
  pathOf(key: string): string;
  /**
   * Whether a signed PUT to `key` may still write (set by the owner of the keys, the media module: an
   * upload URL dies once its upload is finalized). Unset, every validly signed PUT writes.
   */
  acceptsUpload?: ((key: string) => Promise<boolean>) | undefined;
  /** Streams `body` into `key` through a temporary file; rejects (leaving nothing) when it exceeds `maxBytes`. */
  writeLimited(key: string, body: Readable, maxBytes: number): Promise<number>;
}

export function createLocalStorage(options: { root: string; signingKey: Buffer; publicBaseUrl?: string | undefined }): LocalStorage {
  const { root, signingKey } = options;
  const pathOf = (key: string) => {
    if (!isValidObjectKey(key)) throw new ObjectNotFoundError(key);
    return join(root, ...key.split('/'));
  };
  const sign = (g: LocalGrant) =>
    createHmac('sha256', signingKey).update([g.method, g.key, g.expires, g.contentType, g.size, g.fileName, g.disposition].join('\n')).digest('base64url');

  function urlFor(g: LocalGrant, origin: string | undefined): PresignedUrl {
    const base = options.publicBaseUrl ?? origin ?? '';
    const q = new URLSearchParams({
      expires: g.expires,
      content_type: g.contentType,
      size: g.size,
      file_name: g.fileName,
      ...(g.disposition ? { disposition: g.disposition } : {}),
      signature: sign(g),
    });
    return {
      url: `${base}${LOCAL_OBJECTS_PATH}/${g.key}?${q.toString()}`,
      method: g.method,
      headers: g.method === 'PUT' ? { 'content-type': g.contentType } : {},
      expiresAt: new Date(Number(g.expires) * 1000),
    };
  }
  const expiresAt = (seconds: number) => String(Math.floor(Date.now() / 1000) + seconds);

  async function writeLimited(key: string, body: Readable, maxBytes: number): Promise<number> {
    const target = pathOf(key);
    await mkdir(dirname(target), { recursive: true });
    const temp = `${target}.${randomUUID()}.part`;
    let written = 0;
    try {
      await pipeline(
        body,
        async function* limit(source: AsyncIterable<Buffer>) {
          for await (const chunk of source) {
            written += chunk.length;
            if (written > maxBytes) throw new RangeError(`object larger than ${maxBytes} bytes`);
            yield chunk;
          }
        },
        createWriteStream(temp),
      );
      await rename(temp, target);
      return written;
    } catch (err) {
      await rm(temp, { force: true });
      throw err;
    }
  }

  return {
    kind: 'local',
    root,
    pathOf,
    writeLimited,
    verify(grant, signature) {
      const expected = Buffer.from(sign(grant));
      const given = Buffer.from(signature);
      return expected.length === given.length && timingSafeEqual(expected, given);
    },
    async presignUpload(key, o) {
      pathOf(key);
      return urlFor(
        { method: 'PUT', key, expires: expiresAt(o.expiresInSeconds), contentType: o.contentType, size: String(o.size), fileName: '', disposition: '' },
        o.origin,
      );
    },
    async presignDownload(key, o) {
      pathOf(key);
      return urlFor(
        {
          method: 'GET',
          key,
          expires: expiresAt(o.expiresInSeconds),
          contentType: o.contentType ?? '',
          size: '',
          fileName: o.fileName ?? '',
          disposition: o.disposition ?? 'attachment',
        },
        o.origin,
      );
    },
    async head(key) {
      try {
        const s = await stat(pathOf(key));
        return s.isFile() ? { size: s.size, contentType: undefined } : undefined;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT' || err instanceof ObjectNotFoundError) return undefined;
        throw err;
      }
    },
    async read(key, range) {
      const path = pathOf(key);
      const info = await this.head(key);
      if (!info) throw new ObjectNotFoundError(key);
      return createReadStream(path, range ? { start: range.start, end: Math.min(range.end, Math.max(info.size - 1, 0)) } : {});
    },
    async write(key, body, o) {
      await writeLimited(key, body, o.size);
    },
    async copy(from, to) {
      const source = pathOf(from);
      const target = pathOf(to);
      await mkdir(dirname(target), { recursive: true });
      // Through a temporary file renamed into place, as writes are: a reader never sees half a copy.
      const temp = `${target}.${randomUUID()}.part`;
      try {
        await copyFile(source, temp);
        await rename(temp, target);
      } catch (err) {
        await rm(temp, { force: true });
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new ObjectNotFoundError(from);
        throw err;
      }
    },
    async delete(key) {
      await rm(pathOf(key), { force: true });
    },
  };
}
