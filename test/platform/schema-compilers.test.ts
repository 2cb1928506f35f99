import Fastify from 'fastify';
import { Type } from 'typebox';
import { afterEach, describe, expect, it } from 'vitest';
import { sharedSchemaCompilers } from '../../src/platform/http/schema-compilers.js';

const Query = Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }) });
const Reply = Type.Object({ id: Type.Integer(), name: Type.String() });
const apps: ReturnType<typeof Fastify>[] = [];

/** An app with the shared compilers and one route using the schema objects above, as every app of the process does. */
async function appWithRoute(): Promise<ReturnType<typeof Fastify>> {
  const app = Fastify({ schemaController: sharedSchemaCompilers, ajv: { customOptions: { coerceTypes: 'array', useDefaults: true } } });
  apps.push(app);
  app.get('/items', { schema: { querystring: Query, response: { 200: Reply } } }, async (request) => ({
    id: (request.query as { limit: number }).limit,
    name: 'x',
    secret: 'never serialized',
  }));
  await app.ready();
  return app;
}

afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

describe('schema compilers shared by the apps of a process', () => {
  it('validate and serialize in every app that registers the same schemas', async () => {
    for (const app of [await appWithRoute(), await appWithRoute()]) {
      expect((await app.inject({ url: '/items' })).json()).toEqual({ id: 50, name: 'x' });
      expect((await app.inject({ url: '/items?limit=7' })).json()).toEqual({ id: 7, name: 'x' });
      expect((await app.inject({ url: '/items?limit=0' })).statusCode).toBe(400);
    }
  });

  it('refuse a header schema that names a header with capitals, which no request would match', async () => {
    const app = Fastify({ schemaController: sharedSchemaCompilers });
    apps.push(app);
    app.post('/send', { schema: { headers: Type.Object({ 'Idempotency-Key': Type.String() }) } }, async () => ({}));
    await expect(app.ready()).rejects.toThrow(/POST \/send names "Idempotency-Key": write header names in lowercase/);
  });
});
