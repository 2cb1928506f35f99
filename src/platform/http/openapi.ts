/**
 * OpenAPI conventions applied to every documented route at registration (DESIGN "API docs"), so a
 * client generator sees the same shape everywhere without each route repeating it:
 * - a stable `operationId`: the route's own `schema.operationId`, else derived from method and path
 *   (`GET /groups/:id/invoices` → `getGroupsByIdInvoices`; a leading `/api` is dropped because the
 *   `/api` copies of bare routes are hidden); two different routes with one id fail at start;
 * - the problem+json error responses the platform can answer, all with the one `Problem` schema:
 *   400 always, 401 and 403 by the route's `config.auth`, 404 on routes with path parameters, 500, and
 *   503 `service_draining` (src/platform/http/drain.ts refuses any request while the instance stops);
 *   a route's own response for a status wins; a DELETE that declares no success response gets 204;
 * - `security: []` on `auth: 'none'` routes, and the permission a route requires as the scope of its
 *   bearer requirement (`[{ bearer: ['leads.view'] }]`, OpenAPI 3.1 role names);
 * - query and body properties with a default are not `required` (the validator fills them in).
 * Register it before the modules; hidden routes (`schema.hide`) are left alone.
 */
import fp from 'fastify-plugin';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { Type } from 'typebox';

/** `$id` of the shared problem+json schema (`#/components/schemas/Problem` in the document). */
const PROBLEM_SCHEMA_ID = 'Problem';

/** RFC 9457 problem details as every error of the service carries them (src/platform/http/error-handler.ts). */
const Problem = Type.Object(
  {
    type: Type.String({ description: 'URI naming the problem type' }),
    title: Type.String(),
    status: Type.Integer({ minimum: 400, maximum: 599 }),
    detail: Type.Optional(Type.String({ description: 'For people; may change' })),
    code: Type.String({ description: 'Stable snake_case code (docs/api.md lists every one)' }),
    requestId: Type.String(),
    errors: Type.Optional(
      Type.Array(Type.Object({ field: Type.String({ description: '/body/..., /query/... or /params/...' }), message: Type.String() }), {
        description: 'validation_failed: one item per bad field',
      }),
    ),
  },
  { $id: PROBLEM_SCHEMA_ID, additionalProperties: true, description: 'RFC 9457 problem details (application/problem+json)' },
);

/**
 * A documented error response whose body is the shared `Problem` (usable in a route's `response`), or
 * another shared schema (`schemaId`, added with `addSchema`) that extends it with members of its own.
 */
export function problemResponse(description: string, schemaId: string = PROBLEM_SCHEMA_ID) {
  return { description, content: { 'application/problem+json': { schema: problemRef(schemaId) } } };
}

/** One `$ref` object per shared schema: the serializer compiled for it is shared (schema-compilers.ts). */
function problemRef(schemaId: string): { $ref: string } {
  let ref = problemRefs.get(schemaId);
  if (!ref) problemRefs.set(schemaId, (ref = { $ref: `${schemaId}#` }));
  return ref;
}
const problemRefs = new Map<string, { $ref: string }>();

/**
 * A reference to the shared `Problem`, for a shared schema that extends it with members of its own
 * (`allOf: [problemSchemaRef(), { ...its members }]`): generated clients then see one error type.
 */
export const problemSchemaRef = () => Type.Ref(`${PROBLEM_SCHEMA_ID}#`);

/** The house convention for a removal: 204 without a body. */
const REMOVED = { type: 'null', description: 'Removed; no body' };

const ERRORS = {
  400: problemResponse('Invalid request (`validation_failed` names each bad field in `errors`)'),
  401: problemResponse('Missing, invalid or expired Bearer token'),
  403: problemResponse('The caller lacks the permission the operation requires'),
  404: problemResponse('No such record in the active entity'),
  429: problemResponse('`rate_limited`: the API key used its request budget (`RateLimit`, `RateLimit-Policy`, `Retry-After`)'),
  500: problemResponse('Unexpected error; the body exposes only `requestId`'),
  503: problemResponse('`service_draining`: this instance is shutting down; retry (another instance answers)'),
} as const;

/** The operationId derived from `method` and `url` (Fastify syntax, `:param`). */
function deriveOperationId(method: string, url: string): string {
  const words = url
    .split('/')
    .filter((segment, i) => segment !== '' && !(i === 1 && segment === 'api'))
    .map((segment) => {
      const param = segment.startsWith(':');
      const name = segment
        .replace(/^:/, '')
        .split(/[^A-Za-z0-9]+/)
        .filter(Boolean)
        .map(capitalize)
        .join('');
      return param ? `By${name}` : name;
    });
  return method.toLowerCase() + words.join('');
}

function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/**
 * `schema` with its top-level properties that have a `default` dropped from `required`, or undefined
 * when there are none: the validator fills the default in (`useDefaults`), so the client need not send
 * them, and the document must not say it must (generated clients would demand `limit` and `offset`).
 */
function withDefaultsOptional(schema: unknown): object | undefined {
  const s = schema as { required?: string[]; properties?: Record<string, { default?: unknown }> } | undefined;
  if (!s?.required || !s.properties) return undefined;
  // The same object for the same schema: its compiled validator is shared (schema-compilers.ts).
  if (relaxed.has(s)) return relaxed.get(s);
  const required = s.required.filter((name) => s.properties?.[name]?.default === undefined);
  const result = required.length === s.required.length ? undefined : { ...s, required };
  relaxed.set(s, result);
  return result;
}
const relaxed = new WeakMap<object, object | undefined>();

function documentRoute(route: RouteOptions, seen: Map<string, string>): void {
  const schema = route.schema;
  if (!schema || schema.hide) return;
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  // HEAD routes Fastify adds for GET are not in the document.
  if (methods.every((m) => m === 'HEAD')) return;
  const method = methods.find((m) => m !== 'HEAD') ?? 'GET';
  const operationId = (schema as { operationId?: string }).operationId ?? deriveOperationId(method, route.url);
  // The hidden `/api` copy of a bare route (dual-prefix.ts) is the same operation.
  const where = `${method} ${route.url.replace(/^\/api(?=\/)/, '')}`;
  const earlier = seen.get(operationId);
  if (earlier !== undefined && earlier !== where) throw new Error(`operationId ${operationId} of ${where} is already used by ${earlier}`);
  seen.set(operationId, where);

  const auth = route.config?.auth ?? 'none';
  const errors: Record<string, unknown> = { 400: ERRORS[400] };
  if (auth !== 'none') errors[401] = ERRORS[401];
  const peopleOnly = route.config?.peopleOnly === true;
  if ((auth !== 'none' && auth !== 'jwt') || peopleOnly) errors[403] = ERRORS[403];
  if (route.url.includes(':')) errors[404] = ERRORS[404];
  // API keys (issue 53) have a request budget wherever they may go.
  if (auth !== 'none' && !peopleOnly) errors[429] = ERRORS[429];
  errors[500] = ERRORS[500];
  errors[503] = ERRORS[503];

  const defaultsOptional = { querystring: withDefaultsOptional(schema.querystring), body: withDefaultsOptional(schema.body) };
  const own = (schema.response ?? {}) as Record<string, unknown>;
  // The house convention for a removal is 204 without a body; routes rarely spell it out.
  const success = Object.keys(own).some((status) => status.startsWith('2')) || method !== 'DELETE' ? {} : { 204: REMOVED };
  route.schema = {
    ...schema,
    ...(defaultsOptional.querystring ? { querystring: defaultsOptional.querystring } : {}),
    ...(defaultsOptional.body ? { body: defaultsOptional.body } : {}),
    operationId,
    ...(auth === 'none' && !('security' in schema) ? { security: [] } : {}),
    ...(auth !== 'none' && auth !== 'jwt' && !('security' in schema) ? { security: [{ bearer: [auth] }] } : {}),
    response: { ...errors, ...success, ...own },
  };
}

/** Adds the shared `Problem` schema and fills operationIds and error responses of every later route. */
export const openApiConventions = fp(
  async (app: FastifyInstance) => {
    app.addSchema(Problem);
    const seen = new Map<string, string>();
    app.addHook('onRoute', (route) => documentRoute(route, seen));
  },
  { name: 'openapi-conventions' },
);
