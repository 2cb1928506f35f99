import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../helpers/test-app.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

describe('OpenAPI document', () => {
  it('gives every documented operation a summary, a tag and a described success response', async () => {
    const doc: { paths: Record<string, Record<string, { summary?: string; tags?: string[]; responses?: Record<string, unknown> }>> } = (await t.app.inject('/openapi.json')).json();
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
});
