import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { contractCheck, type ContractViolation } from '../../src/platform/http/contract-check.js';

const binary = { schema: { type: 'string', format: 'binary' } };

describe('the contract check of content types', () => {
  it('accepts a success response in a declared media type or range, and reports one in another type', async () => {
    const violations: ContractViolation[] = [];
    const app = Fastify();
    await app.register(contractCheck, { onViolation: (v) => violations.push(v) });
    app.get<{ Querystring: { type: string } }>(
      '/file',
      { schema: { response: { 200: { description: 'bytes', content: { 'image/*': binary, 'application/pdf': binary } } } } },
      async (request, reply) => reply.header('content-type', request.query.type).send(Buffer.from('x')),
    );
    app.get('/json', { schema: { response: { 200: { type: 'object', properties: { ok: { type: 'boolean' } } } } } }, async () => ({ ok: true }));
    for (const type of ['image/jpeg', 'image/webp', 'application/pdf', 'application/pdf; charset=binary', 'IMAGE/PNG']) {
      expect((await app.inject(`/file?type=${encodeURIComponent(type)}`)).statusCode).toBe(200);
    }
    expect(violations).toEqual([]);
    expect((await app.inject('/json')).statusCode).toBe(200);
    expect(violations).toEqual([]);
    await app.inject('/file?type=text%2Fhtml');
    expect(violations).toEqual([
      { method: 'GET', route: '/file', status: 200, problem: 'content-type text/html not declared (declared: image/*, application/pdf)' },
    ]);
    await app.close();
  });
});
