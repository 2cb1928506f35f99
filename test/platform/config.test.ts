import { describe, expect, it } from 'vitest';
import { ConfigError, erpBaseUrl, loadConfig } from '../../src/config.js';

describe('configuration', () => {
  it('starts with no variables at all, on embedded defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ port: 3000, databaseUrl: undefined, dataDir: './data', jwtSecret: undefined, corsOrigins: [] });
    expect(config.objectStorage.region).toBe('us-east-1');
    expect(config.communications.devWebhookResyncEnabled).toBe(false);
  });

  it('reports every problem at once', () => {
    try {
      loadConfig({ PORT: 'abc', LOG_LEVEL: 'loud', DATABASE_URL: 'mysql://x', JWT_SECRET: 'short', ERP_SESSION_ENCRYPTION_KEY: 'nope', OBJSTORE_BUCKET: 'b' });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const problems = (err as ConfigError).problems.map((p) => p.split(':')[0]);
      expect(problems).toEqual(
        expect.arrayContaining(['PORT', 'LOG_LEVEL', 'DATABASE_URL', 'JWT_SECRET', 'ERP_SESSION_ENCRYPTION_KEY', 'OBJSTORE_BUCKET, OBJSTORE_ACCESS_KEY_ID and OBJSTORE_SECRET_ACCESS_KEY']),
      );
    }
  });

  it('requires real secrets and a database in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/JWT_SECRET: required in production[\s\S]*ERP_SESSION_ENCRYPTION_KEY: required[\s\S]*DATABASE_URL: required/);
  });

  it('chooses the ERP URL by ERP_ENV: dev and preview use staging, prod production', () => {
    const env = { ERP_URL: 'https://erp.example.com', ERP_STAGING_URL: 'https://staging.example.com' };
    expect(erpBaseUrl(loadConfig({ ...env, ERP_ENV: 'dev' }))).toBe('https://staging.example.com');
    expect(erpBaseUrl(loadConfig({ ...env, ERP_ENV: 'preview' }))).toBe('https://staging.example.com');
    expect(erpBaseUrl(loadConfig({ ...env, ERP_ENV: 'prod' }))).toBe('https://erp.example.com');
  });
});
