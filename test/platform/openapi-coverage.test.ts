import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../helpers/test-app.js';
import { bearer, makeEntity, makeMember, tokenFor } from '../helpers/factories.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

describe('OpenAPI document', () => {
  it('gives every documented operation a summary, a tag and a described success response', async () => {
    const doc: { paths: Record<string, Record<string, { summary?: string; tags?: string[]; responses?: Record<string, unknown> }>> } = (
      await t.app.inject('/openapi.json')
    ).json();
    const missing: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const success = Object.keys(op.responses ?? {}).some((code) => /^2\d\d$/.test(code));
        if (!success || !op.tags?.length || !op.summary) missing.push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(missing).toEqual([]);
    expect(Object.keys(doc.paths).length).toBeGreaterThan(60);
  });

  it('gives every operation a unique operationId and its errors as problem+json with the shared Problem schema', async () => {
    const doc: { servers?: unknown[]; info: { license?: unknown }; paths: Record<string, Record<string, Op>> } = (await t.app.inject('/openapi.json')).json();
    const ids = new Map<string, string>();
    const wrong: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      expect(path === '/' || !path.endsWith('/'), path).toBe(true);
      for (const [method, op] of Object.entries(ops)) {
        const where = `${method.toUpperCase()} ${path}`;
        if (!op.operationId || ids.has(op.operationId)) wrong.push(`${where}: operationId ${op.operationId}`);
        ids.set(op.operationId ?? '', where);
        const errors = Object.entries(op.responses ?? {}).filter(([status]) => /^[45]/.test(status));
        if (!errors.some(([status]) => status === '400') || !errors.some(([status]) => status === '500')) wrong.push(`${where}: no 400/500`);
        for (const [status, response] of errors) {
          const ref = response.content?.['application/problem+json']?.schema?.$ref;
          // ERP-backed operations answer 401/409/428 with the problem extended by `erp_session` and `reconcile`.
          if (ref !== '#/components/schemas/Problem' && ref !== '#/components/schemas/ErpSessionProblem')
            wrong.push(`${where} ${status}: ${JSON.stringify(response.content)}`);
        }
        if (path.includes('{') && !errors.some(([status]) => status === '404')) wrong.push(`${where}: no 404`);
      }
    }
    expect(wrong).toEqual([]);
    expect(ids.get('postAuthLogin')).toBe('POST /api/auth/login');
    expect(ids.get('getGroupsByIdInvoicesByInvoiceId')).toBe('GET /groups/{id}/invoices/{invoiceId}');
    expect(doc.servers?.length).toBeGreaterThan(0);
    expect(doc.info.license).toBeDefined();
  });

  it('documents every JSON request body as strict (unknown keys are 400, docs/api.md "Bodies")', async () => {
    const doc: { paths: Record<string, Record<string, Op>> } = (await t.app.inject('/openapi.json')).json();
    const loose: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const schema = op.requestBody?.content?.['application/json']?.schema;
        if (schema?.properties && schema.additionalProperties !== false) loose.push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(loose).toEqual([]);
  });
});

describe('query parameters', () => {
  it('ignores unknown query parameters, as docs/api.md says, on routes that once refused them', async () => {
    const token = await tokenFor(t.app, await makeMember(t.database.db, { entityId: (await makeEntity(t.database.db)).id }));
    const res = await t.app.inject({ method: 'GET', url: '/media/presign-download?media_id=2147483647&utm_source=mail', headers: bearer(token) });
    expect(res.statusCode).toBe(404);
    const plain = await t.app.inject({ method: 'GET', url: '/groups?limit=5&unknown_flag=1', headers: bearer(token) });
    expect(plain.statusCode).not.toBe(400);
  });
});

interface Op {
  operationId?: string;
  responses?: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }>;
  requestBody?: { content?: Record<string, { schema?: { properties?: object; additionalProperties?: unknown } }> };
}
