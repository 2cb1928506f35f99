import { describe, expect, it } from 'vitest';
import { ConfigError, erpBaseUrl, loadConfig } from '../../src/config.js';
import { openPreparedDatabase } from '../../src/bootstrap/prepare-database.js';
import { createTestDatabase } from '../helpers/test-db.js';

describe('configuration', () => {
  it('starts with no variables at all, on embedded defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ port: 3000, databaseUrl: undefined, dataDir: './data', jwtSecret: undefined, corsOrigins: [] });
    expect(config.objectStorage.region).toBe('us-east-1');
    expect(config.communications.devWebhookResyncEnabled).toBe(false);
    expect(config.databasePoolSize).toBe(10);
  });

  it('refuses a database pool size that is not a positive integer', () => {
    for (const bad of ['0', '-3', 'many', '2.5']) {
      expect(() => loadConfig({ DATABASE_POOL_SIZE: bad }), bad).toThrow(/DATABASE_POOL_SIZE/);
    }
    expect(loadConfig({ DATABASE_POOL_SIZE: '25' }).databasePoolSize).toBe(25);
  });

  it.skipIf(!process.env.TEST_DATABASE_URL)('opens at most DATABASE_POOL_SIZE PostgreSQL connections', async () => {
    const scratch = await createTestDatabase();
    await scratch.database.close();
    const config = loadConfig({ DATABASE_URL: scratch.url, DATABASE_POOL_SIZE: '2' });
    const database = await openPreparedDatabase(config);
    try {
      // Six overlapping queries: with two connections they run two at a time, on two backends.
      const rows = await Promise.all(Array.from({ length: 6 }, () => database.executeSql('select pg_backend_pid() as pid from pg_sleep(0.05)')));
      expect(new Set(rows.map((r) => r.rows[0]!.pid)).size).toBe(2);
    } finally {
      await database.close();
      await scratch.close();
    }
  });

  it('reports every problem at once', () => {
    try {
      loadConfig({ PORT: 'abc', LOG_LEVEL: 'loud', DATABASE_URL: 'mysql://x', JWT_SECRET: 'short', ERP_SESSION_ENCRYPTION_KEY: 'nope', OBJSTORE_BUCKET: 'b' });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const problems = (err as ConfigError).problems.map((p) => p.split(':')[0]);
      expect(problems).toEqual(
        expect.arrayContaining([
          'PORT',
          'LOG_LEVEL',
          'DATABASE_URL',
          'JWT_SECRET',
          'ERP_SESSION_ENCRYPTION_KEY',
          'OBJSTORE_BUCKET, OBJSTORE_ACCESS_KEY_ID and OBJSTORE_SECRET_ACCESS_KEY',
        ]),
      );
    }
  });

  it('requires real secrets and a database in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(
      /JWT_SECRET: required in production[\s\S]*ERP_SESSION_ENCRYPTION_KEY: required[\s\S]*DATABASE_URL: required/,
    );
  });

  it('requires the webhook app secret and an https communications URL in production', () => {
    const prod = { NODE_ENV: 'production', JWT_SECRET: 'p'.repeat(40), ERP_SESSION_ENCRYPTION_KEY: '1'.repeat(64), DATABASE_URL: 'postgres://db/crm' };
    expect(() => loadConfig(prod)).toThrow(/COMMUNICATIONS_WEBHOOK_APP_SECRET: required in production/);
    expect(() => loadConfig({ ...prod, COMMUNICATIONS_WEBHOOK_APP_SECRET: 's', COMMUNICATIONS_BASE_URL: 'http://comms.example.com' })).toThrow(
      /COMMUNICATIONS_BASE_URL: must use https in production/,
    );
    const ok = loadConfig({ ...prod, COMMUNICATIONS_WEBHOOK_APP_SECRET: 's', COMMUNICATIONS_BASE_URL: 'https://comms.example.com' });
    expect(ok.communications.allowedAddresses).toEqual([]);
    expect(loadConfig({}).communications.allowedAddresses).toEqual(['127.0.0.0/8', '::1']);
  });

  it('takes TRUST_PROXY as a hop count or proxy addresses, and refuses true', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 192.0.2.7,loopback' }).trustProxy).toEqual(['10.0.0.0/8', '192.0.2.7', 'loopback']);
    expect(() => loadConfig({ TRUST_PROXY: 'true' })).toThrow(/TRUST_PROXY: "true" would trust any X-Forwarded-For/);
    expect(() => loadConfig({ TRUST_PROXY: 'proxy.example.com' })).toThrow(/TRUST_PROXY: not an IP address or CIDR: proxy.example.com/);
    expect(() => loadConfig({ WORKFLOWS_WEBHOOK_ALLOWED_ADDRESSES: '10.0.0.0/33' })).toThrow(/WORKFLOWS_WEBHOOK_ALLOWED_ADDRESSES/);
  });

  it('chooses the ERP URL by ERP_ENV: dev and preview use staging, prod production', () => {
    const env = { ERP_URL: 'https://erp.example.com', ERP_STAGING_URL: 'https://staging.example.com' };
    expect(erpBaseUrl(loadConfig({ ...env, ERP_ENV: 'dev' }))).toBe('https://staging.example.com');
    expect(erpBaseUrl(loadConfig({ ...env, ERP_ENV: 'preview' }))).toBe('https://staging.example.com');
    expect(erpBaseUrl(loadConfig({ ...env, ERP_ENV: 'prod' }))).toBe('https://erp.example.com');
  });

  it('reads the media settings: path-style addressing follows an S3-compatible endpoint unless set, retention and limits are checked', () => {
    expect(loadConfig({}).objectStorage.forcePathStyle).toBe(false);
    expect(loadConfig({ OBJSTORE_ENDPOINT: 'http://127.0.0.1:9000' }).objectStorage.forcePathStyle).toBe(true);
    expect(loadConfig({ OBJSTORE_ENDPOINT: 'http://127.0.0.1:9000', OBJSTORE_FORCE_PATH_STYLE: 'false' }).objectStorage.forcePathStyle).toBe(false);
    expect(loadConfig({}).media).toMatchObject({
      inlineWorkerEnabled: true,
      imageMaxEdge: 1600,
      pendingUploadTtlHours: 24,
      originalRetentionDays: 0,
      ffmpegPath: 'ffmpeg',
    });
    expect(() => loadConfig({ MEDIA_ORIGINAL_RETENTION_DAYS: '-1', MEDIA_IMAGE_MAX_EDGE: '10', MEDIA_PENDING_UPLOAD_TTL_HOURS: '0' })).toThrow(
      /MEDIA_IMAGE_MAX_EDGE[\s\S]*MEDIA_PENDING_UPLOAD_TTL_HOURS[\s\S]*MEDIA_ORIGINAL_RETENTION_DAYS/,
    );
  });
});
