/**
 * S3 (or an S3-compatible store such as MinIO) through `@aws-sdk/client-s3`; presigned URLs through
 * `@aws-sdk/s3-request-presigner` (SigV4 query signing). `endpoint` and `forcePathStyle` select a
 * compatible store; the region defaults to us-east-1 (SPEC "Limits").
 */
import type { Readable } from 'node:stream';
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { ObjectNotFoundError, contentDisposition, type ObjectStorage } from './storage.js';

export interface S3StorageOptions {
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  endpoint?: string | undefined;
  forcePathStyle: boolean;
}

const isNotFound = (err: unknown) =>
  err instanceof S3ServiceException && (err.$metadata.httpStatusCode === 404 || err.name === 'NotFound' || err.name === 'NoSuchKey');

export function createS3Storage(options: S3StorageOptions): ObjectStorage & { client: S3Client } {
  const client = new S3Client({
    region: options.region,
    credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey },
    forcePathStyle: options.forcePathStyle,
    ...(options.endpoint !== undefined ? { endpoint: options.endpoint } : {}),
    // Checksums on every request are newer than most S3-compatible stores; send them only when required.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const Bucket = options.bucket;
  const expiry = (seconds: number) => new Date(Date.now() + seconds * 1000);

  return {
    kind: 's3',
    client,
    async presignUpload(key, o) {
      const command = new PutObjectCommand({ Bucket, Key: key, ContentType: o.contentType, ContentLength: o.size });
      const url = await getSignedUrl(client, command, { expiresIn: o.expiresInSeconds, signableHeaders: new Set(['content-type']) });
      return { url, method: 'PUT', headers: { 'content-type': o.contentType }, expiresAt: expiry(o.expiresInSeconds) };
    },
    async presignDownload(key, o) {
      // S3 sets no nosniff or CSP of its own: the bucket's origin is separate from the API's, and the
      // type and disposition are fixed by the signature.
      const disposition = contentDisposition(o.disposition ?? 'attachment', o.fileName);
      const command = new GetObjectCommand({
        Bucket,
        Key: key,
        ResponseContentDisposition: disposition,
        ...(o.contentType ? { ResponseContentType: o.contentType } : {}),
      });
      const url = await getSignedUrl(client, command, { expiresIn: o.expiresInSeconds });
      return { url, method: 'GET', headers: {}, expiresAt: expiry(o.expiresInSeconds) };
    },
    async head(key) {
      try {
        const out = await client.send(new HeadObjectCommand({ Bucket, Key: key }));
        return { size: out.ContentLength ?? 0, contentType: out.ContentType };
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },
    async read(key, range) {
      try {
        const out = await client.send(new GetObjectCommand({ Bucket, Key: key, ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }));
        return out.Body as Readable;
      } catch (err) {
        if (isNotFound(err)) throw new ObjectNotFoundError(key);
        throw err;
      }
    },
    async write(key, body, o) {
      await client.send(new PutObjectCommand({ Bucket, Key: key, Body: body, ContentType: o.contentType, ContentLength: o.size }));
    },
    async copy(from, to) {
      try {
        await client.send(new CopyObjectCommand({ Bucket, Key: to, CopySource: `${Bucket}/${from.split('/').map(encodeURIComponent).join('/')}` }));
      } catch (err) {
        if (isNotFound(err)) throw new ObjectNotFoundError(from);
        throw err;
      }
    },
    async delete(key) {
      await client.send(new DeleteObjectCommand({ Bucket, Key: key }));
    },
  };
}
