/** A real S3-compatible server for tests: s3rver on 127.0.0.1, an ephemeral port and a temporary directory. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';

export interface S3Server {
  endpoint: string;
  bucket: string;
  /** Configuration variables that point the service at this server. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startS3Server(bucket = 'crm-media-test'): Promise<S3Server> {
  const directory = await mkdtemp(join(tmpdir(), 's3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, allowMismatchedSignatures: true, configureBuckets: [{ name: bucket }] });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    env: { OBJSTORE_BUCKET: bucket, OBJSTORE_ACCESS_KEY_ID: 'S3RVER', OBJSTORE_SECRET_ACCESS_KEY: 'S3RVER', OBJSTORE_ENDPOINT: endpoint },
    async close() {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
