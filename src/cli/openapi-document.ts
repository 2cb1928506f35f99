/**
 * Writes the served OpenAPI document (`GET /openapi.json`) to a file, for `redocly lint` and the
 * `openapi-typescript` client types: `tsx src/cli/openapi-document.ts <out.json>`. The app is built
 * on an in-memory PGlite with throwaway secrets and never listens, so no setup is needed.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../config.js';
import { openPreparedDatabase } from '../bootstrap/prepare-database.js';
import { buildApp } from '../app.js';

async function main(out: string): Promise<void> {
  const secrets = { jwtSecret: randomBytes(32).toString('hex'), erpSessionEncryptionKey: randomBytes(32).toString('hex'), generated: [] };
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATA_DIR: ':memory:',
    JWT_SECRET: secrets.jwtSecret,
    ERP_SESSION_ENCRYPTION_KEY: secrets.erpSessionEncryptionKey,
  });
  const database = await openPreparedDatabase(config);
  const app = await buildApp({ config, database, secrets, startQueue: false });
  try {
    const res = await app.inject('/openapi.json');
    if (res.statusCode !== 200) throw new Error(`GET /openapi.json answered ${res.statusCode}`);
    await mkdir(dirname(out), { recursive: true });
    await writeFile(out, JSON.stringify(res.json(), null, 2) + '\n');
  } finally {
    await app.close();
    await database.close();
  }
}

const out = process.argv[2];
if (!out) {
  console.error('usage: tsx src/cli/openapi-document.ts <out.json>');
  process.exit(2);
}
main(out).catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
