import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import Fastify, { type FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { createErpClient, isErpError, type ErpClient } from '../../../src/integrations/erp/index.js';
import { startErpSimulator, type ErpSimulator } from '../../../sim/erp/server.js';

let sim: ErpSimulator;
let erp: ErpClient;
let broken: FastifyInstance;
let brokenUrl: string;
const admin = { email: 'admin@example.com', apiKey: 'demo-admin-api-key-1001' };

async function failure(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected a failure');
}

beforeAll(async () => {
  sim = await startErpSimulator();
  erp = createErpClient({ baseUrl: sim.url, timeoutMs: 200, retryDelayMs: 5 });
  // An ERP that answers outside the contract.
  broken = Fastify();
  broken.get('/api/v1/profile', async () => ({ user_id: 'not-a-number' }));
  broken.get('/api/v1/memberships', async (_req, reply) => reply.type('application/json').send('{not json'));
  await broken.listen({ host: '127.0.0.1', port: 0 });
  const address = broken.server.address();
  brokenUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterEach(() => sim.controls.reset());
afterAll(async () => {
  await broken.close();
  await sim.close();
});

describe('ERP client', () => {
  it('reads userinfo, profile, memberships and a GraphQL JWT of the demo admin', async () => {
    const info = await erp.userinfo('demo-oauth-admin');
    expect(info).toMatchObject({ email: 'admin@example.com', api_key: admin.apiKey, selected_entity: { id: 1, name: 'Demo Company' } });
    expect(await erp.profile(admin)).toMatchObject({ user_id: 1001, employee_id: 2001 });
    expect(await erp.memberships(admin)).toEqual([
      { entity_id: 1, entity_name: 'Demo Company', employee_id: 2001, active: true },
      { entity_id: 2, entity_name: 'Second Company', employee_id: 2002, active: true },
    ]);
    const token = await erp.issueGraphqlToken(admin);
    expect(token.expiresAt.getTime()).toBeGreaterThan(Date.now());
    const data = await erp.graphql(token.token, '{ currencies { code } }', {}, Type.Object({ currencies: Type.Array(Type.Object({ code: Type.String() })) }));
    expect(data.currencies.map((c) => c.code)).toContain('GTQ');
  });

  it('writes through REST without retrying', async () => {
    const note = await erp.write(
      admin,
      'POST',
      'client_notes',
      { client_id: 'CL-1001', text: 'hello' },
      Type.Object({ id: Type.String(), client_id: Type.String() }),
    );
    expect(note.client_id).toBe('CL-1001');
    sim.controls.failStatus = 503;
    const key = 'http:POST /api/v1/client_notes';
    const before = sim.controls.counts[key] ?? 0;
    expect(isErpError(await failure(erp.write(admin, 'POST', 'client_notes', {}, Type.Object({}))), 'unavailable')).toBe(true);
    expect((sim.controls.counts[key] ?? 0) - before).toBe(1);
  });

  it('reports refused credentials as unauthorized, without retrying', async () => {
    const before = sim.controls.counts.profile ?? 0;
    const err = await failure(erp.profile({ email: admin.email, apiKey: 'wrong-key-000' }));
    expect(isErpError(err, 'unauthorized')).toBe(true);
    expect((sim.controls.counts.profile ?? 0) - before).toBe(1);
    expect(isErpError(await failure(erp.userinfo('nope')), 'unauthorized')).toBe(true);
    expect(isErpError(await failure(erp.signIn(admin.email, 'wrong')), 'unauthorized')).toBe(true);
  });

  it('retries idempotent reads on 5xx, twice, then reports unavailable', async () => {
    sim.controls.failStatus = 502;
    const key = 'http:GET /api/v1/profile';
    const before = sim.controls.counts[key] ?? 0;
    const err = await failure(erp.profile(admin));
    expect(isErpError(err, 'unavailable')).toBe(true);
    expect((sim.controls.counts[key] ?? 0) - before).toBe(3);
  });

  it('recovers when a retry succeeds', async () => {
    sim.controls.failStatus = 503;
    setTimeout(() => (sim.controls.failStatus = null), 8);
    expect(await erp.profile(admin)).toMatchObject({ user_id: 1001 });
  });

  it('times out a hanging ERP as unavailable', async () => {
    sim.controls.hang = true;
    const err = await failure(createErpClient({ baseUrl: sim.url, timeoutMs: 100, retries: 0 }).profile(admin));
    expect(isErpError(err, 'unavailable')).toBe(true);
  });

  it('reports an unreachable ERP as unavailable', async () => {
    const err = await failure(createErpClient({ baseUrl: 'http://127.0.0.1:1', timeoutMs: 100, retryDelayMs: 1 }).profile(admin));
    expect(isErpError(err, 'unavailable')).toBe(true);
  });

  it('reports answers outside the contract as invalid_response', async () => {
    const client = createErpClient({ baseUrl: brokenUrl, timeoutMs: 200 });
    expect(isErpError(await failure(client.profile(admin)), 'invalid_response')).toBe(true);
    expect(isErpError(await failure(client.memberships(admin)), 'invalid_response')).toBe(true);
    const token = await erp.issueGraphqlToken(admin);
    const wrongShape = erp.graphql(token.token, '{ currencies { code } }', {}, Type.Object({ currencies: Type.Array(Type.Object({ code: Type.Number() })) }));
    expect(isErpError(await failure(wrongShape), 'invalid_response')).toBe(true);
  });

  it('reports an expired or refused GraphQL JWT as unauthorized', async () => {
    sim.controls.graphqlJwtLifetimeSeconds = -1;
    const token = await erp.issueGraphqlToken(admin);
    expect(isErpError(await failure(erp.graphql(token.token, '{ currencies { code } }', {}, Type.Object({}))), 'unauthorized')).toBe(true);
  });
});
