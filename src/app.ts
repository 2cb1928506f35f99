/**
 * The composition root: `buildApp(deps)` wires platform plugins, the error handler and every module.
 * No side effects at import; the caller owns the database and `listen()`.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import cors from '@fastify/cors';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { randomUUID } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Redis } from 'ioredis';
import { trustProxyOption, type Config } from './config.js';
import type { Database } from './db/client.js';
import type { ResolvedSecrets } from './platform/secrets.js';
import type { AppContext } from './platform/context.js';
import { installErrorHandler } from './platform/http/error-handler.js';
import { installJsonBodyParser } from './platform/http/json-body.js';
import { metricsPlugin } from './platform/http/metrics.js';
import { inFlightPlugin } from './platform/http/in-flight.js';
import { drainPlugin } from './platform/http/drain.js';
import { securityHeaders } from './platform/http/security-headers.js';
import { limitConnectionsPerAddress } from './platform/http/connection-limits.js';
import { openApiConventions } from './platform/http/openapi.js';
import { sharedSchemaCompilers } from './platform/http/schema-compilers.js';
import { contractCheck, type ContractViolation } from './platform/http/contract-check.js';
import { passwordVerifications } from './platform/auth/password.js';
import { authGuard } from './platform/auth/guard.js';
import { createTokenService } from './platform/auth/jwt.js';
import { createAuthenticator } from './platform/auth/authenticator.js';
import { createEventBus } from './platform/events/bus.js';
import { createQueue } from './platform/queue/queue.js';
import { healthRoutes } from './platform/http/health.routes.js';
import { registerAuthModule } from './modules/auth/index.js';
import { registerErpSessionModule } from './modules/erp-session/index.js';
import { registerCatalogsModule } from './modules/catalogs/index.js';
import { registerInvoicesModule } from './modules/invoices/index.js';
import { registerPermissionsModule } from './modules/permissions/index.js';
import { createIdentityService, registerIdentityModule } from './modules/identity/index.js';
import { registerRecordsModule } from './modules/records/index.js';
import { registerLabelsModule } from './modules/labels/index.js';
import { createApiKeys, registerApiKeysModule } from './modules/api-keys/index.js';
import { createApiKeyLimit } from './platform/http/api-key-limit.js';
import { registerSearchModule } from './modules/search/index.js';
import { createAuditService, registerAuditModule } from './modules/audit/index.js';
import { requestContextPlugin } from './platform/http/request-context.js';
import { registerCustomFieldsModule } from './modules/custom-fields/index.js';
import { registerCarteraModule } from './modules/cartera/index.js';
import { createRealtimeGateway } from './platform/realtime/gateway.js';
import { Gauge } from 'prom-client';
import { serializeRequest } from './platform/http/log-redaction.js';
import { FastifyOtelInstrumentation } from '@fastify/otel';

import { createConversationAudience, registerInteractionsModule } from './modules/interactions/index.js';
import { registerNotificationsModule } from './modules/notifications/index.js';
import { registerFormsModule } from './modules/forms/index.js';
import { registerPaymentsModule } from './modules/payments/index.js';
import { registerMediaModule } from './modules/media/index.js';
import { registerWorkflowsModule } from './modules/workflows/index.js';
import { registerCommerceModule } from './modules/commerce/index.js';
import { registerImportsModule } from './modules/imports/index.js';
import { registerWebhooksModule } from './modules/webhooks/index.js';
import { registerRoutes } from './platform/http/dual-prefix.js';

/** Probes and scrapes: frequent and uninteresting in traces. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

export interface AppDeps {
  config: Config;
  database: Database;
  secrets: ResolvedSecrets;
  /** Shared Redis connection (rate limits, realtime adapter) when `REDIS_URL` is set. */
  redis?: Redis | undefined;
  /** Where log lines go instead of stdout (tests read them). */
  logStream?: { write(line: string): void };
  /** Start queue workers when the app is ready (default true). */
  startQueue?: boolean;
  /**
   * Human-readable log lines (pino-pretty) instead of JSON lines: for a person at a terminal, never in
   * production (see `wantsPrettyLogs`). Redaction applies to both.
   */
  prettyLogs?: boolean;
  /** The clock of workflow schedules and executions (tests inject one); default the system clock. */
  now?: () => Date;
  /**
   * With `HTTP_CONTRACT_CHECK` on: receives each response the OpenAPI document does not describe instead
   * of that response becoming a 500 (the test suite collects them and fails the file).
   */
  onContractViolation?: (violation: ContractViolation) => void;
}

/** True when logs go to a terminal outside production: `npm start` and `npm run demo` then log through pino-pretty. */
export function wantsPrettyLogs(config: Pick<Config, 'nodeEnv'>, stdout: { isTTY?: boolean } = process.stdout): boolean {
  return stdout.isTTY === true && config.nodeEnv !== 'production';
}

/** Paths served without CORS: server-to-server webhooks (SPEC "Webhook and other endpoint authentication"). */
const NO_CORS_PREFIXES = ['/api/interactions/webhooks/', '/api/interactions/forms/', '/api/payments/webhooks'];

/** Methods a browser client may use across origins: every method the API has. */
const CORS_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

export type App = FastifyInstance & { ctx: AppContext };

/** Builds the HTTP application with every module registered; call `ready()` or `listen()` next. */
export async function buildApp(deps: AppDeps): Promise<App> {
  const { config } = deps;
  const app = Fastify({
    logger: {
      level: config.logLevel,
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers.cookie',
          'req.headers["x-hub-signature-256"]',
          '*.password',
          '*.api_key',
          '*.access_token',
          '*.token',
        ],
        censor: '[redacted]',
      },
      serializers: { req: serializeRequest },
      ...(deps.logStream ? { stream: deps.logStream } : {}),
      ...(deps.prettyLogs ? { transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' } } } : {}),
    },
    trustProxy: trustProxyOption(config.trustProxy),
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && /^[\w.-]{1,64}$/.test(incoming) ? incoming : `req-${randomUUID()}`;
    },
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', useDefaults: true, allErrors: true } },
    schemaController: sharedSchemaCompilers,
    bodyLimit: 1024 * 1024,
    // drain.ts answers requests that arrive while closing (503 problem+json with Retry-After).
    return503OnClosing: false,
    // No socket is held forever (docs/operations.md "Security"): headers, the whole request and any
    // silence on the socket are each bounded, and so are keep-alive sockets.
    connectionTimeout: config.http.idleTimeoutMs,
    requestTimeout: config.http.requestTimeoutMs,
    keepAliveTimeout: config.http.keepAliveTimeoutMs,
    maxRequestsPerSocket: config.http.maxRequestsPerSocket,
    http: {
      headersTimeout: config.http.headersTimeoutMs,
      // Node checks the header and request deadlines on this interval (30 s by default, which would let
      // a short deadline run that much longer).
      connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor(Math.min(config.http.headersTimeoutMs, config.http.requestTimeoutMs) / 2))),
    },
  }).withTypeProvider<TypeBoxTypeProvider>();
  if (config.http.maxConnections > 0) app.server.maxConnections = config.http.maxConnections;
  limitConnectionsPerAddress(app.server, {
    maxPerAddress: config.http.maxConnectionsPerAddress,
    onRefused: (address) => app.log.warn({ address, max: config.http.maxConnectionsPerAddress }, 'connection refused: too many open from one address'),
  });
  if (config.tracing.enabled) {
    // First, so that it sees every route: a span per request (route, method, status), its handler inside.
    const otel = new FastifyOtelInstrumentation({ ignorePaths: ({ url }) => UNTRACED_PATHS.has(url), instrumentHooks: false });
    await app.register(otel.plugin());
  }

  const tokens = createTokenService(deps.secrets.jwtSecret);
  const identity = createIdentityService({ database: deps.database });
  // Created before the authenticator: API keys (read by it) audit their own administration.
  const audit = createAuditService({ db: deps.database.db });
  const apiKeys = createApiKeys({ db: deps.database.db, log: app.log, audit });
  const authenticator = createAuthenticator({ principals: identity.principals, tokens, apiKeys: apiKeys.loader });
  const queue = createQueue(deps.database, app.log, {
    runWorkers: deps.startQueue !== false,
    maintenanceIntervalSeconds: deps.config.queueMaintenanceIntervalSeconds,
  });
  const realtime = createRealtimeGateway({
    server: app.server,
    authenticator,
    activeMemberships: identity.activeMemberships,
    log: app.log,
    redis: deps.redis,
    redisKeyPrefix: config.redisKeyPrefix,
    recoveryMs: config.realtimeRecoverySeconds * 1000,
  });
  const ctx: AppContext = {
    config,
    database: deps.database,
    db: deps.database.db,
    events: createEventBus(app.log, queue),
    queue,
    tokens,
    authenticator,
    secrets: deps.secrets,
    log: app.log,
    redis: deps.redis,
    realtime,
    publisher: realtime.publisher,
  };
  app.addHook('onClose', async () => ctx.realtime.close());
  app.decorate('ctx', ctx);
  await app.register(inFlightPlugin);
  await app.register(drainPlugin);

  app.addHook('onSend', async (request, reply) => {
    void reply.header('x-request-id', request.id);
  });
  installErrorHandler(app);
  installJsonBodyParser(app);
  if (config.http.contractCheck) await app.register(contractCheck, { onViolation: deps.onContractViolation });
  await app.register(metricsPlugin);
  ctx.queue.registerMetrics(app.metrics);
  app.metrics.registerMetric(passwordVerifications);
  app.metrics.registerMetric(
    new Gauge({
      name: 'realtime_connected_sockets',
      help: 'Socket.IO clients connected to this instance (each instance reports its own)',
      registers: [],
      collect() {
        this.set(ctx.realtime.socketCount());
      },
    }),
  );
  // `*` answers `Access-Control-Allow-Origin: *` without credentials; listed origins are matched exactly
  // and may send credentials. An origin is never echoed blindly, and `null` never matches (config refuses it).
  const anyOrigin = config.corsOrigins.includes('*');
  await app.register(cors, {
    delegator: (req, callback) => {
      const url = req.url ?? '';
      // The visitor API answers CORS itself, for each website's allowed origins (web-channel.routes.ts).
      if (config.corsOrigins.length === 0 || NO_CORS_PREFIXES.some((p) => url.startsWith(p)) || url.startsWith('/api/widget/')) {
        callback(null, { origin: false });
        return;
      }
      const origin = req.headers.origin;
      if (!anyOrigin && (origin === undefined || !config.corsOrigins.includes(origin))) {
        callback(null, { origin: false });
        return;
      }
      callback(null, {
        origin: anyOrigin ? '*' : origin,
        credentials: !anyOrigin,
        methods: CORS_METHODS,
        exposedHeaders: ['ETag', 'Retry-After', 'x-request-id', 'Content-Disposition'],
        maxAge: 600,
      });
    },
  });
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'crm-backend',
        version: '0.1.0',
        description: 'Multi-company CRM backend. Every bare path is also served, and listed, under /api (operationId prefixed `api`).',
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      },
      // Relative: the document describes the server that serves it, wherever it is deployed.
      servers: [{ url: '/', description: 'The server serving this document' }],
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
      security: [{ bearer: [] }],
    },
    // Shared schemas keep their `$id` as their component name (`#/components/schemas/Problem`).
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
  });
  await app.register(openApiConventions);
  await app.register(swaggerUi, { routePrefix: '/docs' });
  // Security headers on every response, /docs included: its CSP admits swagger-ui's own scripts and
  // styles (served from /docs, plus the hashes of its inline ones) and nothing from elsewhere. Media
  // responses set a stricter policy of their own (media.routes.ts, storage/local.routes.ts).
  await app.register(securityHeaders, {
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'", ...app.swaggerCSP.script],
        styleSrc: ["'self'", ...app.swaggerCSP.style],
        imgSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        objectSrc: ["'none'"],
        frameAncestors: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        upgradeInsecureRequests: null,
      },
    },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
  });
  await app.register(authGuard, {
    authenticator: ctx.authenticator,
    apiKeyLimit: createApiKeyLimit({ ...config.apiKeyRateLimit, redis: deps.redis, prefix: config.redisKeyPrefix }),
  });
  await app.register(requestContextPlugin);
  app.get('/openapi.json', { config: { auth: 'none' }, schema: { hide: true } }, async () => app.swagger());
  await registerRoutes(app, healthRoutes, { database: deps.database });

  await registerAuditModule(app, ctx, audit, { workers: deps.startQueue !== false });
  const erpModule = await registerErpSessionModule(app, ctx, identity);
  await registerPermissionsModule(app, ctx);
  await registerIdentityModule(app, ctx, audit);
  await registerApiKeysModule(app, ctx, apiKeys);
  const catalog = await registerCatalogsModule(app, ctx, erpModule);
  const invoices = await registerInvoicesModule(app, ctx, erpModule, identity);
  const labels = await registerLabelsModule(app, ctx);
  const records = await registerRecordsModule(app, ctx, identity, labels, audit);
  const media = await registerMediaModule(app, ctx, { workers: deps.startQueue !== false });
  const customFields = await registerCustomFieldsModule(app, ctx, media.service);
  await registerCarteraModule(app, ctx, records, audit);
  const interactions = await registerInteractionsModule(app, ctx, identity, media.service, labels, customFields.texts, audit, {
    workers: deps.startQueue !== false,
  });
  // Subscribed before anything publishes the conversation events it turns into notifications.
  await registerNotificationsModule(app, ctx);
  // Who hears which conversation on the sockets: members' current permissions (identity's resolution) and what they see (interactions).
  ctx.realtime.useAudience(
    createConversationAudience({
      db: ctx.db,
      permissionsOf: async (m) => (await ctx.authenticator.principalFor(m.userId, m.entityId, m.clientKind))?.permissions,
    }),
  );
  await registerSearchModule(app, { conversations: interactions.search, records: records.search, labels });
  await registerAuthModule(app, ctx, identity, audit, erpModule.sessions, (e) => interactions.communications.afterAuthenticated(e.entityId));
  await registerCommerceModule(
    app,
    ctx,
    { identity, erp: erpModule, catalog, conversations: interactions.automation, outbound: interactions.outbound, media: media.service },
    { workers: deps.startQueue !== false },
  );
  await registerWorkflowsModule(
    app,
    ctx,
    { conversations: interactions.automation, records, identity, invoices, labels },
    { workers: deps.startQueue !== false, now: deps.now },
  );
  await registerImportsModule(app, ctx, { media, records: records.imports, workers: deps.startQueue !== false });
  await registerFormsModule(app, ctx);
  await registerPaymentsModule(app, ctx);
  await registerWebhooksModule(app, ctx, { workers: deps.startQueue !== false, audit });

  if (deps.startQueue !== false) app.addHook('onReady', async () => ctx.queue.start());
  // Also without workers: modules that defined queues started pg-boss (schema, enqueueing).
  app.addHook('onClose', async () => ctx.queue.stop());
  return app;
}

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
  }
}
