/**
 * Every environment variable of the service, typed and validated once (SPEC "Configuration variables"
 * plus the platform's own). `loadConfig` reports every error at once; nothing else reads `process.env`.
 */

import { isIP } from 'node:net';

type ErpEnv = 'dev' | 'preview' | 'prod';
type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  /** `production` refuses generated secrets and embedded fallbacks for them. */
  nodeEnv: 'development' | 'test' | 'production';
  host: string;
  port: number;
  /** PostgreSQL URL; `undefined` means embedded PGlite in `dataDir/pg` (or in memory when `dataDir` is `:memory:`). */
  databaseUrl: string | undefined;
  /** Most PostgreSQL connections this process keeps (`DATABASE_POOL_SIZE`): requests and queue workers share them. */
  databasePoolSize: number;
  /**
   * Seconds between the job queue's maintenance runs (`QUEUE_MAINTENANCE_INTERVAL_SECONDS`, default 30): a
   * job whose process died is retried at the first run after its expiry. One instance runs it at a time.
   */
  queueMaintenanceIntervalSeconds: number;
  /**
   * Seconds a disconnected Socket.IO client may take to reconnect and still receive the events it missed
   * (`REALTIME_RECOVERY_SECONDS`, default 120; 0 turns recovery off).
   */
  realtimeRecoverySeconds: number;
  /**
   * Whether an instance applies migrations (and the job queue's schema) at start (`DATABASE_MIGRATE_ON_START`,
   * default true). False for deployments that migrate in a release step (`npm run migrate`): the instance
   * then waits up to `migrationWaitSeconds` (`DATABASE_MIGRATION_WAIT_SECONDS`, default 60) for the schema to
   * be current and refuses to start otherwise.
   */
  migrateOnStart: boolean;
  migrationWaitSeconds: number;
  /**
   * Shutdown on SIGTERM/SIGINT (docs/operations.md "Shutdown and rolling updates"): `delaySeconds`
   * (`SHUTDOWN_DELAY_SECONDS`, default 0) keeps serving while `/readyz` already answers 503, so that load
   * balancers stop routing here; `drainSeconds` (`SHUTDOWN_DRAIN_SECONDS`, default 25) bounds the whole stop:
   * the process exits by then whatever is still running.
   */
  shutdown: { delaySeconds: number; drainSeconds: number };
  /**
   * OpenTelemetry traces: on when `OTEL_EXPORTER_OTLP_ENDPOINT` (the OTLP/HTTP base URL spans are exported
   * to) is set, or `OTEL_TRACES_ENABLED=true` (spans go to a provider registered by the embedder, tests).
   */
  tracing: { enabled: boolean; endpoint: string | undefined; serviceName: string };
  dataDir: string;
  /** HS256 key; `undefined` until `resolveSecrets` fills it (generated and persisted outside production). */
  jwtSecret: string | undefined;
  redisUrl: string | undefined;
  /** Prefix of this deployment's Redis keys (REDIS_KEY_PREFIX, default `crm`): deployments sharing a Redis must differ. */
  redisKeyPrefix: string;
  logLevel: LogLevel;
  /**
   * Allowed browser origins; empty means CORS is off. `*` allows any origin without credentials; listed
   * origins are echoed exactly, with credentials. `null` is refused at load.
   */
  corsOrigins: string[];
  /**
   * Bounds of every HTTP connection (docs/operations.md "Security"), ms unless said: `headersTimeoutMs`
   * to receive a request's headers, `requestTimeoutMs` its whole body, `idleTimeoutMs` of silence on a
   * socket (a stalled body), `keepAliveTimeoutMs` an idle keep-alive socket is kept, `maxRequestsPerSocket`
   * requests one keep-alive socket may carry, `maxConnections` sockets in all and `maxConnectionsPerAddress`
   * from one client address (0: no cap).
   */
  http: {
    headersTimeoutMs: number;
    requestTimeoutMs: number;
    idleTimeoutMs: number;
    keepAliveTimeoutMs: number;
    maxRequestsPerSocket: number;
    maxConnections: number;
    maxConnectionsPerAddress: number;
    /**
     * `HTTP_CONTRACT_CHECK` (default false; the test setup and `.ci/run` turn it on): every response is
     * checked against the OpenAPI document (its status declared for the route, an error as problem+json
     * with a `code`); a violation is logged and answered 500 `contract_violation` (src/platform/http/contract-check.ts).
     */
    contractCheck: boolean;
  };
  /**
   * Which proxies in front may set X-Forwarded-For (`TRUST_PROXY`): `false` (none, the default), the
   * number of proxy hops, or their addresses/CIDRs (names `loopback`, `linklocal`, `uniquelocal` too).
   * Never `true`: that takes the left-most address, which the client writes (docs/operations.md "Security").
   */
  trustProxy: false | number | string[];
  /**
   * Login attempts allowed per window (`LOGIN_RATE_LIMIT_MAX` per `LOGIN_RATE_LIMIT_WINDOW_SECONDS`), counted
   * per (e-mail, client address) and per client address; never per e-mail alone.
   */
  loginRateLimit: { max: number; windowMs: number };
  /**
   * Requests each API key may make per window (`API_KEY_RATE_LIMIT_MAX` per `API_KEY_RATE_LIMIT_WINDOW_SECONDS`,
   * issue 53), counted in Redis when configured (shared by every instance).
   */
  apiKeyRateLimit: { max: number; windowMs: number };
  /**
   * The website chat's visitor API and `/widget` sockets (issue 32): requests per minute per client address
   * (`WIDGET_RATE_LIMIT_PER_IP`) and per visitor (`WIDGET_RATE_LIMIT_PER_VISITOR`), in Redis when configured;
   * the longest visitor text (`WIDGET_MAX_TEXT_LENGTH`, characters).
   */
  widget: {
    ratePerIp: number;
    ratePerVisitor: number;
    maxTextLength: number;
    /** New visitors per hour per website and address range, /24 or /64 (`WIDGET_NEW_VISITORS_PER_RANGE`). */
    newVisitorsPerRange: number;
    /** New visitors per hour per website (`WIDGET_NEW_VISITORS_PER_WEBSITE`). */
    newVisitorsPerWebsite: number;
    /** Seconds an identity signature holds after its timestamp (`WIDGET_IDENTITY_MAX_AGE_SECONDS`). */
    identityMaxAgeSeconds: number;
  };
  erp: {
    env: ErpEnv;
    url: string;
    stagingUrl: string;
    authUrl: string | undefined;
    /** 32-byte key (64 hex chars or base64); generated and persisted outside production when unset. */
    sessionEncryptionKey: string | undefined;
    catalogCacheTtlDays: number;
    timeoutMs: number;
  };
  auth: { allowFirstLoginPasswordBootstrap: boolean };
  communications: {
    baseUrl: string | undefined;
    apiKey: string | undefined;
    entityIdHard: number | undefined;
    privilegedOperatorEmails: string[];
    autoLoginOnAuth: boolean;
    devTunnelEnabled: boolean;
    /** The tunnel's public URL in development (COMMUNICATIONS_DEV_TUNNEL_URL). */
    devTunnelUrl: string | undefined;
    devWebhookResyncEnabled: boolean;
    bootWebhookResyncEnabled: boolean;
    userWebhookResyncEnabled: boolean;
    /** When set, inbound webhooks must carry a valid `X-Hub-Signature-256`; required in production. */
    webhookAppSecret: string | undefined;
    /** Most events (messages, statuses, changes) one webhook request may carry (`COMMUNICATIONS_WEBHOOK_MAX_EVENTS`, default 1000); more answer 413. */
    webhookMaxEvents: number;
    /**
     * Batches of inbound events one instance applies at once, each in its own transaction
     * (`COMMUNICATIONS_INTAKE_CONCURRENCY`, default 2; measured in bench/RESULTS.md, issue 55).
     */
    intakeConcurrency: number;
    /**
     * Addresses (IPs or CIDRs) a communications base URL may resolve to although private or loopback
     * (`COMMUNICATIONS_ALLOWED_ADDRESSES`). Unset: none in production, loopback (127.0.0.0/8, ::1) elsewhere,
     * so that the simulator on 127.0.0.1 works for tests and `npm run demo`.
     */
    allowedAddresses: string[];
    /** Per-call timeout of the communications client, ms (COMMUNICATIONS_TIMEOUT_MS, default 10 000). */
    timeoutMs: number;
  };
  workflows: {
    /** Workflow-caused hops after which events no longer start executions (`WORKFLOWS_MAX_DEPTH`, default 5). */
    maxDepth: number;
    /** Addresses a webhook step may reach although private or loopback (`WORKFLOWS_WEBHOOK_ALLOWED_ADDRESSES`; on-premise targets, tests). */
    webhookAllowedAddresses: string[];
    /** Per-call timeout of a webhook step, ms (`WORKFLOWS_WEBHOOK_TIMEOUT_MS`, default 10 000). */
    webhookTimeoutMs: number;
    /** PEM file of extra certificate authorities webhook steps trust (`WORKFLOWS_WEBHOOK_CA_FILE`; a private CA on premises). */
    webhookCaFile: string | undefined;
    /** Longest wait for the ERP when a trigger reads its `erp.*` fields, ms (`WORKFLOWS_ERP_FIELDS_TIMEOUT_MS`, default 2 000). */
    erpFieldsTimeoutMs: number;
  };
  /**
   * Outbound webhooks to other systems (issue 53), under the same address guard as workflow webhook steps:
   * addresses reachable although private (`OUTBOUND_WEBHOOKS_ALLOWED_ADDRESSES`), extra CAs
   * (`OUTBOUND_WEBHOOKS_CA_FILE`), per-attempt timeout (`OUTBOUND_WEBHOOKS_TIMEOUT_MS`, default 10 000), the
   * delay before the first retry (`OUTBOUND_WEBHOOKS_FIRST_RETRY_MS`, default 5 000; doubled per retry up to 1 h).
   */
  outboundWebhooks: { allowedAddresses: string[]; caFile: string | undefined; timeoutMs: number; firstRetryMs: number };
  publicBaseUrl: string | undefined;
  /**
   * A preview deployment's external URL as its host announces it, the first set of `RENDER_EXTERNAL_URL`,
   * `RAILWAY_PUBLIC_DOMAIN`, `VERCEL_URL` and `FLY_APP_NAME` (as `<name>.fly.dev`), with `https://` added
   * when the variable carries a bare host. Used for the communications webhook URL when `ERP_ENV=preview`
   * and `PUBLIC_BASE_URL` is unset.
   */
  previewExternalUrl: string | undefined;
  objectStorage: {
    bucket: string | undefined;
    accessKeyId: string | undefined;
    secretAccessKey: string | undefined;
    region: string;
    /** S3-compatible store URL (`OBJSTORE_ENDPOINT`); unset means AWS. */
    endpoint: string | undefined;
    /** Path-style bucket addressing (`OBJSTORE_FORCE_PATH_STYLE`, default true when an endpoint is set). */
    forcePathStyle: boolean;
  };
  media: {
    publicBaseUrl: string | undefined;
    inlineWorkerEnabled: boolean;
    /** Longest edge of an optimized image, in pixels (`MEDIA_IMAGE_MAX_EDGE`). */
    imageMaxEdge: number;
    /** Hours an upload may stay unfinalized before housekeeping removes it (`MEDIA_PENDING_UPLOAD_TTL_HOURS`). */
    pendingUploadTtlHours: number;
    /** Days an original is kept once an optimized version exists; 0 keeps it forever (`MEDIA_ORIGINAL_RETENTION_DAYS`). */
    originalRetentionDays: number;
    /** The ffmpeg executable (`MEDIA_FFMPEG_PATH`, default `ffmpeg` on the PATH). */
    ffmpegPath: string;
    /** Bytes of uploads an entity may hold, declared sizes of its objects not failed (`MEDIA_QUOTA_BYTES_PER_ENTITY`; 0: no quota). */
    quotaBytesPerEntity: number;
    /** Uploads an entity may presign in 24 hours (`MEDIA_QUOTA_UPLOADS_PER_DAY`; 0: no quota). */
    quotaUploadsPerDay: number;
    /** Website chat visitors' uploads, which never count against the two quotas above (issue 48). */
    visitorQuotas: {
      /** Uploads a visitor may have presigned and not yet sent (`WIDGET_UPLOADS_PENDING_PER_VISITOR`). */
      pendingPerVisitor: number;
      /** Bytes a visitor may send in 24 hours (`WIDGET_UPLOAD_BYTES_PER_VISITOR_PER_DAY`). */
      bytesPerVisitorPerDay: number;
      /** Bytes the visitors of one website may send in 24 hours (`WIDGET_UPLOAD_BYTES_PER_WEBSITE_PER_DAY`). */
      bytesPerWebsitePerDay: number;
    };
  };
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/** Reads and validates the configuration. Throws `ConfigError` listing every problem found. */
export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const read = new EnvReader(env, problems);
  const otlpEndpoint = read.url('OTEL_EXPORTER_OTLP_ENDPOINT', ['http:', 'https:']);

  const nodeEnv = read.oneOf('NODE_ENV', ['development', 'test', 'production'] as const, 'development');
  const erpEnv = read.oneOf('ERP_ENV', ['dev', 'preview', 'prod'] as const, 'dev');
  const config: Config = {
    nodeEnv,
    host: read.string('HOST') ?? '127.0.0.1',
    port: read.int('PORT', 3000, { min: 0, max: 65535 }),
    databaseUrl: read.url('DATABASE_URL', ['postgres:', 'postgresql:']),
    databasePoolSize: read.int('DATABASE_POOL_SIZE', 10, { min: 1, max: 1000 }),
    queueMaintenanceIntervalSeconds: read.int('QUEUE_MAINTENANCE_INTERVAL_SECONDS', 30, { min: 1, max: 3600 }),
    realtimeRecoverySeconds: read.int('REALTIME_RECOVERY_SECONDS', 120, { min: 0, max: 3600 }),
    migrateOnStart: read.bool('DATABASE_MIGRATE_ON_START', true),
    migrationWaitSeconds: read.int('DATABASE_MIGRATION_WAIT_SECONDS', 60, { min: 0, max: 3600 }),
    shutdown: {
      delaySeconds: read.int('SHUTDOWN_DELAY_SECONDS', 0, { min: 0, max: 300 }),
      drainSeconds: read.int('SHUTDOWN_DRAIN_SECONDS', 25, { min: 1, max: 600 }),
    },
    tracing: {
      enabled: otlpEndpoint !== undefined || read.bool('OTEL_TRACES_ENABLED', false),
      endpoint: otlpEndpoint,
      serviceName: read.string('OTEL_SERVICE_NAME') ?? 'crm-backend',
    },
    dataDir: read.string('DATA_DIR') ?? './data',
    jwtSecret: read.string('JWT_SECRET'),
    redisUrl: read.url('REDIS_URL', ['redis:', 'rediss:']),
    redisKeyPrefix: read.string('REDIS_KEY_PREFIX') ?? 'crm',
    logLevel: read.oneOf('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
    corsOrigins: read.list('CORS_ORIGINS'),
    http: {
      headersTimeoutMs: read.int('HTTP_HEADERS_TIMEOUT_MS', 20_000, { min: 100 }),
      requestTimeoutMs: read.int('HTTP_REQUEST_TIMEOUT_MS', 300_000, { min: 100 }),
      idleTimeoutMs: read.int('HTTP_IDLE_TIMEOUT_MS', 60_000, { min: 100 }),
      keepAliveTimeoutMs: read.int('HTTP_KEEP_ALIVE_TIMEOUT_MS', 72_000, { min: 100 }),
      maxRequestsPerSocket: read.int('HTTP_MAX_REQUESTS_PER_SOCKET', 1000, { min: 0 }),
      maxConnections: read.int('HTTP_MAX_CONNECTIONS', 10_000, { min: 0 }),
      maxConnectionsPerAddress: read.int('HTTP_MAX_CONNECTIONS_PER_ADDRESS', 256, { min: 0 }),
      contractCheck: read.bool('HTTP_CONTRACT_CHECK', false),
    },
    trustProxy: read.trustProxy('TRUST_PROXY'),
    loginRateLimit: {
      max: read.int('LOGIN_RATE_LIMIT_MAX', 10, { min: 1 }),
      windowMs: read.int('LOGIN_RATE_LIMIT_WINDOW_SECONDS', 60, { min: 1 }) * 1000,
    },
    apiKeyRateLimit: {
      max: read.int('API_KEY_RATE_LIMIT_MAX', 600, { min: 1 }),
      windowMs: read.int('API_KEY_RATE_LIMIT_WINDOW_SECONDS', 60, { min: 1 }) * 1000,
    },
    widget: {
      ratePerIp: read.int('WIDGET_RATE_LIMIT_PER_IP', 600, { min: 1 }),
      ratePerVisitor: read.int('WIDGET_RATE_LIMIT_PER_VISITOR', 120, { min: 1 }),
      maxTextLength: read.int('WIDGET_MAX_TEXT_LENGTH', 4000, { min: 1, max: 65536 }),
      newVisitorsPerRange: read.int('WIDGET_NEW_VISITORS_PER_RANGE', 20, { min: 1 }),
      newVisitorsPerWebsite: read.int('WIDGET_NEW_VISITORS_PER_WEBSITE', 1000, { min: 1 }),
      identityMaxAgeSeconds: read.int('WIDGET_IDENTITY_MAX_AGE_SECONDS', 24 * 3600, { min: 60, max: 30 * 24 * 3600 }),
    },
    erp: {
      env: erpEnv,
      url: read.url('ERP_URL', ['http:', 'https:']) ?? 'http://127.0.0.1:4100',
      stagingUrl: read.url('ERP_STAGING_URL', ['http:', 'https:']) ?? 'http://127.0.0.1:4100',
      authUrl: read.url('AUTH_ERP', ['http:', 'https:']),
      sessionEncryptionKey: read.string('ERP_SESSION_ENCRYPTION_KEY'),
      catalogCacheTtlDays: read.int('ERP_CATALOG_CACHE_TTL_DAYS', 7, { min: 1 }),
      timeoutMs: read.int('ERP_TIMEOUT_MS', 5000, { min: 100 }),
    },
    auth: { allowFirstLoginPasswordBootstrap: read.bool('AUTH_ALLOW_FIRST_LOGIN_PASSWORD_BOOTSTRAP', false) },
    communications: {
      baseUrl: read.url('COMMUNICATIONS_BASE_URL', ['http:', 'https:']),
      apiKey: read.string('COMMUNICATIONS_API_KEY'),
      entityIdHard: read.optionalInt('COMMUNICATIONS_ENTITY_ID_HARD', { min: 1 }),
      privilegedOperatorEmails: read.list('COMMUNICATIONS_PRIVILEGED_OPERATOR_EMAILS').map((e) => e.toLowerCase()),
      autoLoginOnAuth: read.bool('COMMUNICATIONS_AUTO_LOGIN_ON_AUTH', false),
      devTunnelEnabled: read.bool('COMMUNICATIONS_DEV_TUNNEL_ENABLED', false),
      devTunnelUrl: read.url('COMMUNICATIONS_DEV_TUNNEL_URL', ['http:', 'https:']),
      devWebhookResyncEnabled: read.bool('COMMUNICATIONS_DEV_WEBHOOK_RESYNC_ENABLED', false),
      bootWebhookResyncEnabled: read.bool('COMMUNICATIONS_BOOT_WEBHOOK_RESYNC_ENABLED', false),
      userWebhookResyncEnabled: read.bool('COMMUNICATIONS_USER_WEBHOOK_RESYNC_ENABLED', false),
      webhookAppSecret: read.string('COMMUNICATIONS_WEBHOOK_APP_SECRET'),
      webhookMaxEvents: read.int('COMMUNICATIONS_WEBHOOK_MAX_EVENTS', 1000, { min: 1, max: 100_000 }),
      intakeConcurrency: read.int('COMMUNICATIONS_INTAKE_CONCURRENCY', 2, { min: 1, max: 16 }),
      allowedAddresses: read.addressList('COMMUNICATIONS_ALLOWED_ADDRESSES') ?? (nodeEnv === 'production' ? [] : ['127.0.0.0/8', '::1']),
      timeoutMs: read.int('COMMUNICATIONS_TIMEOUT_MS', 10_000, { min: 100 }),
    },
    workflows: {
      maxDepth: read.int('WORKFLOWS_MAX_DEPTH', 5, { min: 1, max: 50 }),
      webhookAllowedAddresses: read.addressList('WORKFLOWS_WEBHOOK_ALLOWED_ADDRESSES') ?? [],
      webhookTimeoutMs: read.int('WORKFLOWS_WEBHOOK_TIMEOUT_MS', 10_000, { min: 100 }),
      webhookCaFile: read.string('WORKFLOWS_WEBHOOK_CA_FILE'),
      erpFieldsTimeoutMs: read.int('WORKFLOWS_ERP_FIELDS_TIMEOUT_MS', 2_000, { min: 100, max: 30_000 }),
    },
    outboundWebhooks: {
      allowedAddresses: read.addressList('OUTBOUND_WEBHOOKS_ALLOWED_ADDRESSES') ?? [],
      caFile: read.string('OUTBOUND_WEBHOOKS_CA_FILE'),
      timeoutMs: read.int('OUTBOUND_WEBHOOKS_TIMEOUT_MS', 10_000, { min: 100, max: 60_000 }),
      firstRetryMs: read.int('OUTBOUND_WEBHOOKS_FIRST_RETRY_MS', 5_000, { min: 10, max: 3_600_000 }),
    },
    publicBaseUrl: read.url('PUBLIC_BASE_URL', ['http:', 'https:']),
    previewExternalUrl: previewExternalUrl(read),
    objectStorage: {
      bucket: read.string('OBJSTORE_BUCKET'),
      accessKeyId: read.string('OBJSTORE_ACCESS_KEY_ID'),
      secretAccessKey: read.string('OBJSTORE_SECRET_ACCESS_KEY'),
      region: read.string('OBJSTORE_REGION') ?? 'us-east-1',
      endpoint: read.url('OBJSTORE_ENDPOINT', ['http:', 'https:']),
      forcePathStyle: read.bool('OBJSTORE_FORCE_PATH_STYLE', read.string('OBJSTORE_ENDPOINT') !== undefined),
    },
    media: {
      publicBaseUrl: read.url('MEDIA_PUBLIC_BASE_URL', ['http:', 'https:']),
      inlineWorkerEnabled: read.bool('MEDIA_INLINE_WORKER_ENABLED', true),
      imageMaxEdge: read.int('MEDIA_IMAGE_MAX_EDGE', 1600, { min: 64, max: 10000 }),
      pendingUploadTtlHours: read.int('MEDIA_PENDING_UPLOAD_TTL_HOURS', 24, { min: 1 }),
      originalRetentionDays: read.int('MEDIA_ORIGINAL_RETENTION_DAYS', 0, { min: 0 }),
      ffmpegPath: read.string('MEDIA_FFMPEG_PATH') ?? 'ffmpeg',
      quotaBytesPerEntity: read.int('MEDIA_QUOTA_BYTES_PER_ENTITY', 20 * 1024 ** 3, { min: 0 }),
      quotaUploadsPerDay: read.int('MEDIA_QUOTA_UPLOADS_PER_DAY', 5000, { min: 0 }),
      visitorQuotas: {
        pendingPerVisitor: read.int('WIDGET_UPLOADS_PENDING_PER_VISITOR', 3, { min: 1 }),
        bytesPerVisitorPerDay: read.int('WIDGET_UPLOAD_BYTES_PER_VISITOR_PER_DAY', 100 * 1024 ** 2, { min: 1 }),
        bytesPerWebsitePerDay: read.int('WIDGET_UPLOAD_BYTES_PER_WEBSITE_PER_DAY', 2 * 1024 ** 3, { min: 1 }),
      },
    },
  };

  if (config.jwtSecret !== undefined && config.jwtSecret.length < 32) {
    problems.push('JWT_SECRET: must be at least 32 characters');
  }
  if (config.erp.sessionEncryptionKey !== undefined && decodeKey(config.erp.sessionEncryptionKey) === undefined) {
    problems.push('ERP_SESSION_ENCRYPTION_KEY: must be 32 bytes, as 64 hex characters or base64');
  }
  if (config.http.headersTimeoutMs > config.http.requestTimeoutMs) {
    problems.push('HTTP_HEADERS_TIMEOUT_MS: must not exceed HTTP_REQUEST_TIMEOUT_MS');
  }
  for (const origin of config.corsOrigins) {
    if (origin === '*') continue;
    if (origin.toLowerCase() === 'null') {
      problems.push('CORS_ORIGINS: "null" is never allowed (sandboxed frames and file pages all send it)');
    } else if (!/^https?:\/\/[^/\s]+$/i.test(origin)) {
      problems.push(`CORS_ORIGINS: "${origin}" is not an origin (scheme://host[:port], no path)`);
    }
  }
  if (nodeEnv === 'production') {
    if (config.jwtSecret === undefined) problems.push('JWT_SECRET: required in production');
    if (config.erp.sessionEncryptionKey === undefined) problems.push('ERP_SESSION_ENCRYPTION_KEY: required in production');
    if (config.databaseUrl === undefined) problems.push('DATABASE_URL: required in production');
    if (config.communications.webhookAppSecret === undefined) {
      problems.push('COMMUNICATIONS_WEBHOOK_APP_SECRET: required in production (inbound webhooks must be signed)');
    }
    if (config.communications.baseUrl !== undefined && !config.communications.baseUrl.startsWith('https:')) {
      problems.push('COMMUNICATIONS_BASE_URL: must use https in production');
    }
  }
  const bucketVars = [config.objectStorage.bucket, config.objectStorage.accessKeyId, config.objectStorage.secretAccessKey];
  if (bucketVars.some((v) => v !== undefined) && bucketVars.some((v) => v === undefined)) {
    problems.push('OBJSTORE_BUCKET, OBJSTORE_ACCESS_KEY_ID and OBJSTORE_SECRET_ACCESS_KEY: set all three or none');
  }

  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** Host variables that carry a preview deployment's external URL, in the order they are tried. */
const PREVIEW_URL_VARIABLES = ['RENDER_EXTERNAL_URL', 'RAILWAY_PUBLIC_DOMAIN', 'VERCEL_URL', 'FLY_APP_NAME'] as const;

/** `Config.previewExternalUrl`: the first preview host variable set, as an `https://` URL without trailing slashes. */
function previewExternalUrl(read: EnvReader): string | undefined {
  for (const name of PREVIEW_URL_VARIABLES) {
    const value = read.string(name);
    if (value === undefined) continue;
    const base = name === 'FLY_APP_NAME' ? `${value}.fly.dev` : value;
    return (/^https?:\/\//.test(base) ? base : `https://${base}`).replace(/\/+$/, '');
  }
  return undefined;
}

/** The ERP base URL for the configured `ERP_ENV` (SPEC: dev and preview use staging, prod production). */
export function erpBaseUrl(config: Config): string {
  return config.erp.env === 'prod' ? config.erp.url : config.erp.stagingUrl;
}

function isAddressOrCidr(item: string): boolean {
  const [address, bits, ...rest] = item.split('/');
  const family = isIP(address ?? '');
  if (family === 0 || rest.length > 0) return false;
  if (bits === undefined) return true;
  return /^\d+$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

/**
 * Fastify's `trustProxy` for `TRUST_PROXY`. A hop count becomes "trust the `n` nearest hops" (Fastify
 * itself trusts nothing for a bare number); addresses are handed over as they are.
 */
export function trustProxyOption(value: Config['trustProxy']): false | string[] | ((address: string, hop: number) => boolean) {
  if (typeof value !== 'number') return value;
  return (_address, hop) => hop < value;
}

/** Decodes a 32-byte key given as 64 hex characters or base64; `undefined` when it is neither. */
export function decodeKey(value: string): Buffer | undefined {
  if (/^[0-9a-fA-F]{64}$/.test(value)) return Buffer.from(value, 'hex');
  const buf = Buffer.from(value, 'base64');
  return buf.length === 32 ? buf : undefined;
}

class EnvReader {
  constructor(
    private readonly env: Env,
    private readonly problems: string[],
  ) {}

  string(name: string): string | undefined {
    const raw = this.env[name];
    return raw === undefined || raw.trim() === '' ? undefined : raw.trim();
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    if ((allowed as readonly string[]).includes(raw)) return raw as T;
    this.problems.push(`${name}: must be one of ${allowed.join(', ')} (got "${raw}")`);
    return fallback;
  }

  optionalInt(name: string, range: { min?: number; max?: number } = {}): number | undefined {
    const raw = this.string(name);
    if (raw === undefined) return undefined;
    const n = Number(raw);
    if (!Number.isInteger(n) || (range.min !== undefined && n < range.min) || (range.max !== undefined && n > range.max)) {
      this.problems.push(
        `${name}: must be an integer${range.min !== undefined ? ` >= ${range.min}` : ''}${range.max !== undefined ? ` <= ${range.max}` : ''} (got "${raw}")`,
      );
      return undefined;
    }
    return n;
  }

  int(name: string, fallback: number, range: { min?: number; max?: number } = {}): number {
    return this.optionalInt(name, range) ?? fallback;
  }

  bool(name: string, fallback: boolean): boolean {
    const raw = this.string(name)?.toLowerCase();
    if (raw === undefined) return fallback;
    if (['true', '1', 'yes', 'on'].includes(raw)) return true;
    if (['false', '0', 'no', 'off'].includes(raw)) return false;
    this.problems.push(`${name}: must be true or false (got "${raw}")`);
    return fallback;
  }

  url(name: string, protocols: string[]): string | undefined {
    const raw = this.string(name);
    if (raw === undefined) return undefined;
    try {
      const url = new URL(raw);
      if (!protocols.includes(url.protocol)) {
        this.problems.push(`${name}: protocol must be one of ${protocols.join(', ')}`);
        return undefined;
      }
      return raw.replace(/\/+$/, '');
    } catch {
      this.problems.push(`${name}: not a valid URL`);
      return undefined;
    }
  }

  /**
   * `TRUST_PROXY`: unset, `false` or `0` trust nothing; a positive integer is a hop count; anything else a
   * comma-separated list of proxy addresses/CIDRs. `true` is refused: it trusts the client-written
   * left-most X-Forwarded-For entry, which lets anyone pick the address login throttling counts.
   */
  trustProxy(name: string): false | number | string[] {
    const raw = this.string(name);
    if (raw === undefined || ['false', '0', 'no', 'off'].includes(raw.toLowerCase())) return false;
    if (['true', 'yes', 'on'].includes(raw.toLowerCase())) {
      this.problems.push(
        `${name}: "true" would trust any X-Forwarded-For the client writes; give the number of proxies in front (e.g. 1) or their addresses/CIDRs`,
      );
      return false;
    }
    if (/^\d+$/.test(raw)) return Number(raw);
    return this.addressList(name, ['loopback', 'linklocal', 'uniquelocal']) ?? false;
  }

  /** A comma-separated list of IPs or CIDRs (plus `names`); `undefined` when unset. */
  addressList(name: string, names: string[] = []): string[] | undefined {
    if (this.string(name) === undefined) return undefined;
    const items = this.list(name);
    const bad = items.filter((item) => !names.includes(item) && !isAddressOrCidr(item));
    if (bad.length > 0) this.problems.push(`${name}: not an IP address or CIDR: ${bad.join(', ')}`);
    return items.filter((item) => !bad.includes(item));
  }

  list(name: string): string[] {
    return (this.string(name) ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
  }
}
