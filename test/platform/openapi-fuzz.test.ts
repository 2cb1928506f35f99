/**
 * Walks the served OpenAPI document: for every operation, fast-check generates malformed requests
 * from its schemas (out-of-range, negative and non-numeric path ids; wrong-typed and huge query
 * values; bodies with wrong types, unknown keys and huge numbers) and sends them as a super_admin, so
 * the guard lets them reach validation and the services. No answer may be a 5xx, and every 4xx must
 * be problem+json with a `code`.
 *
 * Then the same malformed requests from callers who may not use the operation: without a token
 * (every guarded operation), a member holding no permission (every operation whose bearer requirement
 * names a permission) and a super administrator outside the operator allow-list (operator
 * endpoints). They get 401/403 and nothing else: authorization comes before validation (issue 28).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { InjectOptions } from 'fastify';
import { createTestApp, type TestContext } from '../helpers/test-app.js';
import { bearer, makeEntity, makeMember, tokenFor } from '../helpers/factories.js';

interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  $ref?: string;
}
interface Parameter {
  in: 'path' | 'query' | 'header';
  name: string;
  schema?: JsonSchema;
}
interface Operation {
  operationId: string;
  security?: Record<string, string[]>[];
  responses?: Record<string, { description?: string }>;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
}
interface Doc {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

/** Requests generated per operation: enough to hit each malformed shape, small enough for CI. */
const RUNS_PER_OPERATION = 12;
/** Fixed so CI is repeatable; `OPENAPI_FUZZ_SEED=<n>` (or `random`) explores other inputs locally. */
const SEED = process.env.OPENAPI_FUZZ_SEED === 'random' ? Date.now() : Number(process.env.OPENAPI_FUZZ_SEED ?? 20240611);

/** Values that break a naive handler: beyond int4 and int8, negatives, fractions, non-numbers. */
const hostileScalar = fc.oneof(
  fc.constantFrom('99999999999999999999', '2147483648', '-1', '0', '1.5', 'abc', '', 'null', '1e400', '%00', '\u0000', "' or 1=1 --"),
  fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }).map(String),
  fc.string({ maxLength: 40 }),
);

const hostileJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(1e20, -1, 0, 2147483648, 1.5, Number.MAX_SAFE_INTEGER, '99999999999999999999', '', null, true, [], {}),
  fc.jsonValue({ maxDepth: 2 }),
);

function resolve(schema: JsonSchema, doc: Doc): JsonSchema {
  if (schema.$ref) return doc.components?.schemas?.[schema.$ref.replace('#/components/schemas/', '')] ?? {};
  return schema;
}

/** A value that matches `schema` roughly (to get past validation into services), or a hostile one. */
function valueFor(schema: JsonSchema, doc: Doc, depth = 0): fc.Arbitrary<unknown> {
  const s = resolve(schema, doc);
  const alternatives = s.anyOf ?? s.oneOf;
  if (alternatives?.length) return fc.oneof(...alternatives.map((a) => valueFor(a, doc, depth)));
  if (s.enum?.length) return fc.oneof(fc.constantFrom(...s.enum), hostileJson);
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  let plausible: fc.Arbitrary<unknown>;
  switch (type) {
    case 'integer':
      plausible = fc.oneof(
        fc.integer({ min: s.minimum ?? -1000, max: Math.min(s.maximum ?? 2 ** 31, 2 ** 53) }),
        fc.constantFrom(s.minimum ?? 0, s.maximum ?? 2 ** 31),
      );
      break;
    case 'number':
      plausible = fc.double({ noNaN: true, noDefaultInfinity: true });
      break;
    case 'boolean':
      plausible = fc.boolean();
      break;
    case 'string':
      plausible = fc.string({ maxLength: Math.min(s.maxLength ?? 60, 60) });
      break;
    case 'array':
      plausible = depth > 2 ? fc.constant([]) : fc.array(valueFor(s.items ?? {}, doc, depth + 1), { maxLength: 3 });
      break;
    case 'object':
      plausible = depth > 2 ? fc.constant({}) : objectFor(s, doc, depth + 1);
      break;
    default:
      plausible = fc.jsonValue({ maxDepth: 2 });
  }
  return fc.oneof({ arbitrary: plausible, weight: 3 }, { arbitrary: hostileJson, weight: 1 });
}

/** An object over the schema's properties (each one present or not), sometimes with an unknown key. */
function objectFor(schema: JsonSchema, doc: Doc, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties = Object.fromEntries(Object.entries(schema.properties ?? {}).map(([name, p]) => [name, valueFor(p, doc, depth)]));
  return fc
    .tuple(fc.record(properties, { requiredKeys: [] }), fc.option(fc.tuple(fc.string({ minLength: 1, maxLength: 12 }), hostileJson), { freq: 3 }))
    .map(([record, extra]) => (extra ? { ...record, [`x_${extra[0]}`]: extra[1] } : record));
}

interface Sample {
  url: string;
  body?: unknown;
}

function requestsFor(path: string, op: Operation, doc: Doc): fc.Arbitrary<Sample> {
  const params = op.parameters ?? [];
  const pathParams = params.filter((p) => p.in === 'path');
  const queryParams = params.filter((p) => p.in === 'query');
  const pathArb = fc
    .tuple(...pathParams.map(() => hostileScalar))
    .map((values) => pathParams.reduce((url, p, i) => url.replace(`{${p.name}}`, encodeURIComponent(String(values[i]))), path));
  const queryValue = (p: Parameter) =>
    fc.oneof(
      valueFor(p.schema ?? {}, doc).map((v) => (typeof v === 'string' ? v : JSON.stringify(v))),
      hostileScalar,
    );
  const queryArb = fc.record(Object.fromEntries(queryParams.map((p) => [p.name, queryValue(p)])), { requiredKeys: [] });
  const bodySchema = op.requestBody?.content['application/json']?.schema;
  const bodyArb: fc.Arbitrary<unknown> = bodySchema
    ? fc.oneof({ arbitrary: valueFor(bodySchema, doc), weight: 4 }, { arbitrary: hostileJson, weight: 1 })
    : fc.constant(undefined);
  return fc.tuple(pathArb, queryArb, bodyArb).map(([url, query, body]) => {
    const search = new URLSearchParams(query as Record<string, string>).toString();
    return { url: search ? `${url}?${search}` : url, body };
  });
}

let t: TestContext;
let token: string;
let noPermissionToken: string;
let doc: Doc;
beforeAll(async () => {
  t = await createTestApp({ env: { LOGIN_RATE_LIMIT_MAX: '100000' } });
  const entity = await makeEntity(t.database.db);
  const admin = await makeMember(t.database.db, { entityId: entity.id, superAdmin: true });
  token = await tokenFor(t.app, admin);
  noPermissionToken = await tokenFor(t.app, await makeMember(t.database.db, { entityId: entity.id }));
  doc = (await t.app.inject('/openapi.json')).json();
});

/** Operations that check one of two permissions in the guard (a rule the bearer scope cannot state). */
const EITHER_PERMISSION = new Set(['postGroupAssignments', 'deleteGroupAssignmentsById']);

/** Who may not use `op`, by the document: each caller's token (undefined: none) and the statuses allowed. */
function refusedCallers(op: Operation): { who: string; token: string | undefined }[] {
  if (op.security?.length === 0) return [];
  const callers: { who: string; token: string | undefined }[] = [{ who: 'anonymous', token: undefined }];
  const scopes = (op.security ?? []).flatMap((requirement) => Object.values(requirement).flat());
  if (scopes.length > 0 || EITHER_PERMISSION.has(op.operationId)) callers.push({ who: 'no permission', token: noPermissionToken });
  // The fuzz app has an empty COMMUNICATIONS_PRIVILEGED_OPERATOR_EMAILS: no one is an operator.
  if (op.responses?.['403']?.description?.includes('not_privileged_operator')) callers.push({ who: 'super_admin outside the allow-list', token });
  return callers;
}
afterAll(async () => t.close());

/** The document's paths without the `/api` copies of bare paths: the same handlers, fuzzed once. */
function operationPaths(): [string, Record<string, Operation>][] {
  return Object.entries(doc.paths).filter(([path]) => !(path.startsWith('/api/') && doc.paths[path.slice(4)] !== undefined));
}

describe('malformed requests over the whole OpenAPI document', () => {
  it('never answer 5xx, and every 4xx is problem+json with a code', async () => {
    const failures: string[] = [];
    let operations = 0;
    for (const [path, methods] of operationPaths()) {
      for (const [method, op] of Object.entries(methods)) {
        operations++;
        const result = await fc.check(
          fc.asyncProperty(requestsFor(path, op, doc), async (sample) => {
            const res = await t.app.inject({
              method: method.toUpperCase() as 'GET',
              url: sample.url,
              headers: { ...bearer(token), ...(sample.body === undefined ? {} : { 'content-type': 'application/json' }) },
              ...(sample.body === undefined ? {} : { payload: JSON.stringify(sample.body) }),
            });
            if (res.statusCode >= 500) return false;
            if (res.statusCode >= 400) {
              const problem =
                String(res.headers['content-type']).startsWith('application/problem+json') && typeof res.json<{ code?: unknown }>().code === 'string';
              if (!problem) return false;
            }
            return true;
          }),
          { numRuns: RUNS_PER_OPERATION, seed: SEED, endOnFailure: true },
        );
        if (result.failed) failures.push(`${method.toUpperCase()} ${path} (${op.operationId}, seed ${SEED}): ${JSON.stringify(result.counterexample)}`);
      }
    }
    expect(operations).toBeGreaterThan(60);
    expect(failures).toEqual([]);
  }, 120_000);

  it('answers a caller who may not use the operation 401/403 only, whatever the parameters and body', async () => {
    const failures: string[] = [];
    let checked = 0;
    const kinds = new Set<string>();
    for (const [path, methods] of operationPaths()) {
      for (const [method, op] of Object.entries(methods)) {
        for (const caller of refusedCallers(op)) {
          checked++;
          kinds.add(caller.who);
          const expected = caller.token === undefined ? [401] : [403];
          const result = await fc.check(
            fc.asyncProperty(requestsFor(path, op, doc), async (sample) => {
              const res = await t.app.inject({
                method: method.toUpperCase() as 'GET',
                url: sample.url,
                headers: {
                  ...(caller.token === undefined ? {} : bearer(caller.token)),
                  ...(sample.body === undefined ? {} : { 'content-type': 'application/json' }),
                },
                ...(sample.body === undefined ? {} : { payload: JSON.stringify(sample.body) }),
              });
              return (
                expected.includes(res.statusCode) &&
                String(res.headers['content-type']).startsWith('application/problem+json') &&
                res.json<{ errors?: unknown }>().errors === undefined
              );
            }),
            { numRuns: RUNS_PER_OPERATION, seed: SEED, endOnFailure: true },
          );
          if (result.failed)
            failures.push(`${caller.who}: ${method.toUpperCase()} ${path} (${op.operationId}, seed ${SEED}): ${JSON.stringify(result.counterexample)}`);
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
    expect([...kinds].sort()).toEqual(['anonymous', 'no permission', 'super_admin outside the allow-list']);
    expect(failures).toEqual([]);
  }, 120_000);

  it('answers an id beyond the integer column 400 validation_failed naming the field, in path, query and body', async () => {
    const huge = '99999999999999999999';
    const cases: { method: 'GET' | 'POST' | 'PATCH' | 'DELETE'; url: string; payload?: unknown; field: string }[] = [
      { method: 'GET', url: `/groups/${huge}`, field: '/params/id' },
      { method: 'PATCH', url: `/api/leads/${huge}`, payload: { name: 'x' }, field: '/params/id' },
      { method: 'GET', url: `/contacts/2147483648`, field: '/params/id' },
      { method: 'DELETE', url: `/lead-assignments/${huge}`, field: '/params/id' },
      { method: 'GET', url: `/api/roles/${huge}`, field: '/params/id' },
      { method: 'GET', url: `/api/subscriptions/${huge}`, field: '/params/id' },
      { method: 'GET', url: `/custom-fields/${huge}`, field: '/params/id' },
      { method: 'GET', url: `/groups/${huge}/custom-field-values`, field: '/params/id' },
      { method: 'GET', url: `/cartera/leads/${huge}`, field: '/params/id' },
      { method: 'GET', url: `/groups/${huge}/invoices`, field: '/params/id' },
      { method: 'GET', url: `/leads?group_id=${huge}`, field: '/query/group_id' },
      { method: 'GET', url: `/leads?offset=${huge}`, field: '/query/offset' },
      { method: 'POST', url: '/leads', payload: { group_id: 1e20, name: 'Acme' }, field: '/body/group_id' },
      { method: 'POST', url: '/group-assignments', payload: { employee_id: 1, group_ids: [2147483648] }, field: '/body/group_ids/0' },
    ];
    for (const c of cases) {
      const options: InjectOptions = { method: c.method, url: c.url, headers: bearer(token) };
      if (c.payload !== undefined) options.payload = c.payload as InjectOptions['payload'];
      const res = await t.app.inject(options);
      expect({ url: c.url, status: res.statusCode, type: res.headers['content-type'] }).toEqual({
        url: c.url,
        status: 400,
        type: 'application/problem+json; charset=utf-8',
      });
      const body = res.json<{ code: string; errors: { field: string }[] }>();
      expect(body.code).toBe('validation_failed');
      expect(body.errors.map((e) => e.field)).toContain(c.field);
    }
  });
});
