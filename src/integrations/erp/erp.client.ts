/**
 * Typed client of the ERP (docs/erp-contract.md): OAuth userinfo, password sign-in, profile and
 * memberships by e-mail + API key, GraphQL JWT issuance, GraphQL queries and REST writes.
 *
 * Every call has a timeout (`timeoutMs`, AbortSignal); idempotent reads (GET and GraphQL queries) are
 * retried on `unavailable` up to `retries` times with a short backoff; answers are validated against
 * the contract schemas and failures surface as `ErpError` (`unauthorized`, `unavailable`,
 * `invalid_response`).
 */
import { withClientSpan } from '../../platform/telemetry/tracing.js';
import type { TSchema, Static } from 'typebox';
import { Value } from 'typebox/value';
import { ErpError } from './erp.errors.js';
import {
  ErpGraphqlToken,
  ErpMemberships,
  ErpOrderCreated,
  ErpProfile,
  ErpSignIn,
  ErpUserinfo,
  GraphqlEnvelope,
  type ErpMembership,
  type ErpOrderRequest,
} from './erp.schemas.js';

/** What identifies a user to the ERP's REST API. */
export interface ErpCredentials {
  email: string;
  apiKey: string;
}

export interface ErpClientOptions {
  /** ERP API base URL (`erpBaseUrl(config)`), without trailing slash. */
  baseUrl: string;
  /** OAuth provider base (`AUTH_ERP`); defaults to `baseUrl`. */
  authUrl?: string | undefined;
  timeoutMs: number;
  /** Extra attempts for idempotent reads (default 2). */
  retries?: number;
  /** Delay before the first retry, doubled each time (default 50 ms). */
  retryDelayMs?: number;
}

interface RequestSpec {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  headers?: Record<string, string>;
  body?: unknown;
  idempotent: boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function credentialHeaders(creds: ErpCredentials): Record<string, string> {
  return { 'x-user-email': creds.email, 'x-user-token': creds.apiKey };
}

export function createErpClient(options: ErpClientOptions) {
  const retries = options.retries ?? 2;
  const retryDelayMs = options.retryDelayMs ?? 50;
  const authUrl = options.authUrl ?? options.baseUrl;

  function once(spec: RequestSpec): Promise<{ status: number; body: unknown }> {
    const path = new URL(spec.url).pathname;
    return withClientSpan('erp', `${spec.method} ${path}`, { 'http.request.method': spec.method, 'url.path': path }, async (traceHeaders, answered) => {
      const result = await attempt(spec, traceHeaders);
      answered(result.status);
      return result;
    });
  }

  async function attempt(spec: RequestSpec, traceHeaders: Record<string, string>): Promise<{ status: number; body: unknown }> {
    let res: Response;
    try {
      res = await fetch(spec.url, {
        method: spec.method,
        headers: { accept: 'application/json', ...(spec.body !== undefined ? { 'content-type': 'application/json' } : {}), ...spec.headers, ...traceHeaders },
        body: spec.body !== undefined ? JSON.stringify(spec.body) : null,
        signal: AbortSignal.timeout(options.timeoutMs),
      });
    } catch (err) {
      const reason = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError') ? 'timed out' : 'is unreachable';
      throw new ErpError('unavailable', `ERP ${spec.method} ${new URL(spec.url).pathname} ${reason}`);
    }
    let body: unknown;
    try {
      const text = await res.text();
      body = text === '' ? null : (JSON.parse(text) as unknown);
    } catch {
      if (res.status >= 500) throw new ErpError('unavailable', `ERP answered ${res.status}`, res.status);
      throw new ErpError('invalid_response', `ERP answered ${res.status} with a body that is not JSON`, res.status);
    }
    if (res.status === 401 || res.status === 403) throw new ErpError('unauthorized', `ERP refused the credentials (${res.status})`, res.status);
    if (res.status >= 500 || res.status === 429) throw new ErpError('unavailable', `ERP answered ${res.status}`, res.status);
    if (res.status < 200 || res.status >= 300) throw new ErpError('invalid_response', `ERP answered ${res.status}`, res.status);
    return { status: res.status, body };
  }

  async function request<S extends TSchema>(spec: RequestSpec, schema: S): Promise<Static<S>> {
    let attempt = 0;
    for (;;) {
      try {
        const { body } = await once(spec);
        if (!Value.Check(schema, body)) throw new ErpError('invalid_response', `ERP ${spec.method} ${new URL(spec.url).pathname} answered an unexpected shape`);
        return body;
      } catch (err) {
        const retryable = spec.idempotent && err instanceof ErpError && err.kind === 'unavailable' && attempt < retries;
        if (!retryable) throw err;
        await sleep(retryDelayMs * 2 ** attempt);
        attempt++;
      }
    }
  }

  return {
    /** GET {AUTH_ERP}/api/userinfo with the OAuth access token (SPEC "Login flow" step 2). */
    async userinfo(accessToken: string): Promise<ErpUserinfo> {
      return request({ method: 'GET', url: `${authUrl}/api/userinfo`, headers: { authorization: `Bearer ${accessToken}` }, idempotent: true }, ErpUserinfo);
    },

    /** POST /api/v1/sessions: validates e-mail + password with the ERP and returns the user's API key. */
    async signIn(email: string, password: string): Promise<ErpSignIn> {
      return request({ method: 'POST', url: `${options.baseUrl}/api/v1/sessions`, body: { email, password }, idempotent: false }, ErpSignIn);
    },

    /** GET /api/v1/profile: the user's ERP profile and selected entity. */
    async profile(creds: ErpCredentials): Promise<ErpProfile> {
      return request({ method: 'GET', url: `${options.baseUrl}/api/v1/profile`, headers: credentialHeaders(creds), idempotent: true }, ErpProfile);
    },

    /** GET /api/v1/memberships: the entities the ERP lists for the user, active or not. */
    async memberships(creds: ErpCredentials): Promise<ErpMembership[]> {
      const body = await request(
        { method: 'GET', url: `${options.baseUrl}/api/v1/memberships`, headers: credentialHeaders(creds), idempotent: true },
        ErpMemberships,
      );
      return body.data;
    },

    /** POST /api/v1/graphql_tokens: a GraphQL JWT for the user's selected entity. `expiresAt` is a Date. */
    async issueGraphqlToken(creds: ErpCredentials): Promise<{ token: string; expiresAt: Date }> {
      const body = await request(
        { method: 'POST', url: `${options.baseUrl}/api/v1/graphql_tokens`, headers: credentialHeaders(creds), idempotent: false },
        ErpGraphqlToken,
      );
      const expiresAt = new Date(body.expires_at);
      if (Number.isNaN(expiresAt.getTime())) throw new ErpError('invalid_response', 'ERP GraphQL token expiry is not a date');
      return { token: body.token, expiresAt };
    },

    /**
     * POST /api/v1/orders with `Idempotency-Key`: the ERP creates the order once per key and answers a
     * repeat with the order it created, so the caller may retry a timed-out push with the same key. Never
     * retried here (a write).
     */
    async createOrder(creds: ErpCredentials, idempotencyKey: string, order: ErpOrderRequest): Promise<ErpOrderCreated> {
      return request(
        {
          method: 'POST',
          url: `${options.baseUrl}/api/v1/orders`,
          headers: { ...credentialHeaders(creds), 'idempotency-key': idempotencyKey },
          body: order,
          idempotent: false,
        },
        ErpOrderCreated,
      );
    },

    /**
     * POST /graphql with the GraphQL JWT. `data` is validated against `schema`; GraphQL errors with
     * `extensions.code = UNAUTHENTICATED` are `unauthorized`, other errors `invalid_response`.
     */
    async graphql<S extends TSchema>(jwt: string, query: string, variables: Record<string, unknown>, schema: S): Promise<Static<S>> {
      const envelope = await request(
        { method: 'POST', url: `${options.baseUrl}/graphql`, headers: { authorization: `Bearer ${jwt}` }, body: { query, variables }, idempotent: true },
        GraphqlEnvelope,
      );
      if (envelope.errors && envelope.errors.length > 0) {
        if (envelope.errors.some((e) => e.extensions?.code === 'UNAUTHENTICATED')) throw new ErpError('unauthorized', 'ERP refused the GraphQL token');
        throw new ErpError('invalid_response', `ERP GraphQL error: ${envelope.errors[0]!.message}`);
      }
      if (!Value.Check(schema, envelope.data)) throw new ErpError('invalid_response', 'ERP GraphQL data has an unexpected shape');
      return envelope.data;
    },

    /** A REST write (`POST`/`PUT`/`PATCH`/`DELETE` under /api/v1); never retried. */
    async write<S extends TSchema>(
      creds: ErpCredentials,
      method: 'POST' | 'PUT' | 'PATCH' | 'DELETE',
      path: string,
      body: unknown,
      schema: S,
    ): Promise<Static<S>> {
      return request(
        { method, url: `${options.baseUrl}/api/v1/${path.replace(/^\/+/, '')}`, headers: credentialHeaders(creds), body, idempotent: false },
        schema,
      );
    },
  };
}
export type ErpClient = ReturnType<typeof createErpClient>;
