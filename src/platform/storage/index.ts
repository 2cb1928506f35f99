/**
 * Chooses the object store from configuration: S3 when `OBJSTORE_BUCKET` (and its keys) are set, local
 * disk under `DATA_DIR/media` otherwise (a temporary directory when `DATA_DIR` is `:memory:`).
 */
import { createHmac } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Config } from '../../config.js';
import { createLocalStorage } from './local.js';
import { createS3Storage } from './s3.js';
import type { ObjectStorage } from './storage.js';

export * from './storage.js';
export { type LocalStorage } from './local.js';
export { localObjectRoutes } from './local.routes.js';

/** The configured store. `secret` (the JWT secret) derives the local store's URL-signing key. */
export function createObjectStorage(config: Config, secret: string): ObjectStorage {
  const s3 = config.objectStorage;
  if (s3.bucket !== undefined && s3.accessKeyId !== undefined && s3.secretAccessKey !== undefined) {
    return createS3Storage({
      bucket: s3.bucket,
      accessKeyId: s3.accessKeyId,
      secretAccessKey: s3.secretAccessKey,
      region: s3.region,
      endpoint: s3.endpoint,
      forcePathStyle: s3.forcePathStyle,
    });
  }
  const root = config.dataDir === ':memory:' ? join(tmpdir(), `crm-media-${randomUUID()}`) : join(config.dataDir, 'media');
  // A key of its own, so a leaked URL signature says nothing about the JWT secret.
  const signingKey = createHmac('sha256', secret).update('media-url-signing').digest();
  return createLocalStorage({ root, signingKey, publicBaseUrl: config.publicBaseUrl });
}
