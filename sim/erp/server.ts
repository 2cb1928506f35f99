/**
 * ERP simulator: a small Fastify app speaking the ERP contract of docs/erp-contract.md over real HTTP.
 * Used by the tests (127.0.0.1, ephemeral port) and by the demo (`startErpSimulator({ port: 4100 })`,
 * the default ERP_URL / ERP_STAGING_URL / AUTH_ERP of the service).
 *
 * `controls` injects failures: latency, a status for every API call (401, 5xx), hanging requests
 * (client timeouts), GraphQL JWTs issued already expired or refused, and a different selected entity.
 */
import Fastify from 'fastify';
import { randomBytes } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import { createDemoErpData, type ErpData, type SimUser } from './data.js';
import { createGraphqlApi } from './graphql.js';

export interface ErpSimulatorControls {
  /** Added before every API answer, ms. */
  latencyMs: number;
  /** When set, every API call whose path starts with one of `failPaths` (all when null) answers this status. */
  failStatus: number | null;
  failPaths: string[] | null;
  /** When true, API calls never answer (until the simulator closes): the client's timeout fires. */
  hang: boolean;
  /** The next N order writes are applied, then never answered (the client times out; a retry with the key replays). */
  hangAfterWrite: number;
  /** Orders created, by idempotency key. */
  orders: Map<string, { number: string; status: string; body: unknown; userEmail: string }>;
  /** Lifetime of issued GraphQL JWTs, seconds; 0 or negative issues them already expired. */
  graphqlJwtLifetimeSeconds: number;
  /** When true, GraphQL refuses every JWT with 401 UNAUTHENTICATED. */
  rejectGraphqlJwt: boolean;
  /** When set, the ERP reports this entity as selected for every user. */
  selectedEntityOverride: number | null;
  /** Every HTTP request as `http:<METHOD> <path>` (failed ones too); calls per endpoint (`sessions`, `profile`, `memberships`, `graphql_tokens`, `userinfo`, `write`) and per GraphQL field (`gql:<field>`). */
  counts: Record<string, number>;
  /** Every GraphQL JWT issued so far (tests assert none leaks into a CRM response). */
  issuedJwts: string[];
  /** Restores the defaults above (data is kept). */
  reset(): void;
  /** Adds a user; returns it (API key generated when not given). */
  addUser(user: Omit<SimUser, 'apiKey'> & { apiKey?: string }): SimUser;
  /** An OAuth access token for `email`, as the web would hold after the code exchange. */
  issueOauthToken(email: string): string;
}

export interface ErpSimulator {
  url: string;
  data: ErpData;
  controls: ErpSimulatorControls;
  close(): Promise<void>;
}

export interface ErpSimulatorOptions {
  port?: number;
  host?: string;
  /** Defaults to the demo data set. */
  data?: ErpData;
}

/** Port of the demo simulator: the service's default ERP_URL, ERP_STAGING_URL and AUTH_ERP point here. */
export const DEMO_ERP_PORT = 4100;

/** Environment that points the service at a simulator (for `npm run demo` and benchmarks). */
export function erpEnvFor(url: string): Record<string, string> {
  return { ERP_URL: url, ERP_STAGING_URL: url, AUTH_ERP: url };
}

/** The demo simulator on 127.0.0.1:4100 with the demo data set (users, entities, clients, invoices). */
export async function startDemoErpSimulator(port = DEMO_ERP_PORT): Promise<ErpSimulator> {
  return startErpSimulator({ port, data: createDemoErpData() });
}

const DEFAULTS = {
  latencyMs: 0,
  failStatus: null,
  failPaths: null,
  hang: false,
  hangAfterWrite: 0,
  graphqlJwtLifetimeSeconds: 3600,
  rejectGraphqlJwt: false,
  selectedEntityOverride: null,
};

/** Starts the simulator; `url` is its base (use it as ERP_URL, ERP_STAGING_URL and AUTH_ERP). */
export async function startErpSimulator(options: ErpSimulatorOptions = {}): Promise<ErpSimulator> {
  const data = options.data ?? createDemoErpData();
  const jwtKey = randomBytes(32);
  const hanging = new Set<() => void>();
  const controls: ErpSimulatorControls = {
    ...DEFAULTS,
    counts: {},
    issuedJwts: [],
    orders: new Map(),
    reset() {
      Object.assign(controls, DEFAULTS);
      for (const release of hanging) release();
    },
    addUser(user) {
      const full: SimUser = { ...user, email: user.email.toLowerCase(), apiKey: user.apiKey ?? `key-${randomBytes(12).toString('hex')}` };
      data.users = data.users.filter((u) => u.email !== full.email);
      data.users.push(full);
      return full;
    },
    issueOauthToken(email) {
      const token = `oauth-${randomBytes(16).toString('hex')}`;
      data.oauthTokens.set(token, email.toLowerCase());
      return token;
    },
  };
  const count = (name: string) => {
    controls.counts[name] = (controls.counts[name] ?? 0) + 1;
  };
  const gql = createGraphqlApi(data, (field) => count(`gql:${field}`));

  const app = Fastify({ logger: false, forceCloseConnections: true });

  app.addHook('onRequest', async (request, reply) => {
    count(`http:${request.method} ${request.url.split('?')[0]}`);
    if (controls.latencyMs > 0) await new Promise((r) => setTimeout(r, controls.latencyMs));
    if (controls.hang) {
      await new Promise<void>((resolve) => {
        const release = () => {
          hanging.delete(release);
          resolve();
        };
        hanging.add(release);
        setTimeout(release, 30_000).unref();
      });
      return reply.code(503).send({ error: 'released' });
    }
    const path = request.url.split('?')[0]!;
    if (controls.failStatus !== null && (controls.failPaths === null || controls.failPaths.some((p) => path.startsWith(p)))) {
      return reply.code(controls.failStatus).send({ error: `injected ${controls.failStatus}` });
    }
  });

  const userByKey = (email: unknown, key: unknown) =>
    typeof email === 'string' && typeof key === 'string' ? data.users.find((u) => u.email === email.toLowerCase() && u.apiKey === key) : undefined;
  const entityView = (id: number) => {
    const e = data.entities.find((x) => x.id === id);
    return { id, name: e?.name ?? `Entity ${id}`, logo: e?.logo ?? null };
  };
  const selectedOf = (u: SimUser) => controls.selectedEntityOverride ?? u.selectedEntityId;
  const authUser = (headers: Record<string, unknown>) => userByKey(headers['x-user-email'], headers['x-user-token']);

  app.get('/api/userinfo', async (request, reply) => {
    count('userinfo');
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    const email = token ? data.oauthTokens.get(token) : undefined;
    const user = email ? data.users.find((u) => u.email === email) : undefined;
    if (!user) return reply.code(401).send({ error: 'invalid_token' });
    return { email: user.email, api_key: user.apiKey, selected_entity: entityView(selectedOf(user)) };
  });

  app.post('/api/v1/sessions', async (request, reply) => {
    count('sessions');
    const body = (request.body ?? {}) as { email?: unknown; password?: unknown };
    const email = typeof body.email === 'string' ? body.email.toLowerCase() : undefined;
    const user = email ? data.users.find((u) => u.email === email) : undefined;
    if (!user || user.password !== body.password) return reply.code(401).send({ error: 'invalid_credentials' });
    return { email: user.email, api_key: user.apiKey };
  });

  app.get('/api/v1/profile', async (request, reply) => {
    count('profile');
    const user = authUser(request.headers);
    if (!user) return reply.code(401).send({ error: 'invalid_api_key' });
    const selected = selectedOf(user);
    return {
      user_id: user.id,
      email: user.email,
      name: user.name,
      employee_id: user.memberships.find((m) => m.entityId === selected)?.employeeId ?? null,
      selected_entity: entityView(selected),
    };
  });

  app.get('/api/v1/memberships', async (request, reply) => {
    count('memberships');
    const user = authUser(request.headers);
    if (!user) return reply.code(401).send({ error: 'invalid_api_key' });
    return {
      data: user.memberships.map((m) => ({ entity_id: m.entityId, entity_name: entityView(m.entityId).name, employee_id: m.employeeId, active: m.active })),
    };
  });

  app.post('/api/v1/graphql_tokens', async (request, reply) => {
    count('graphql_tokens');
    const user = authUser(request.headers);
    if (!user) return reply.code(401).send({ error: 'invalid_api_key' });
    const exp = Math.floor(Date.now() / 1000) + controls.graphqlJwtLifetimeSeconds;
    const token = await new SignJWT({ ent: selectedOf(user), jti: randomBytes(8).toString('hex') })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(String(user.id))
      .setIssuedAt()
      .setExpirationTime(exp)
      .sign(jwtKey);
    controls.issuedJwts.push(token);
    return { token, expires_at: new Date(exp * 1000).toISOString() };
  });

  app.post('/graphql', async (request, reply) => {
    count('graphql');
    const unauthenticated = (message: string) => reply.code(401).send({ errors: [{ message, extensions: { code: 'UNAUTHENTICATED' } }] });
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (!token || controls.rejectGraphqlJwt) return unauthenticated('invalid token');
    let caller: { userId: number; entityId: number };
    try {
      // Expired tokens are refused like the real ERP does (clockTolerance 0).
      const { payload } = await jwtVerify(token, jwtKey, { algorithms: ['HS256'] });
      caller = { userId: Number(payload.sub), entityId: Number(payload.ent) };
    } catch {
      return unauthenticated('token expired or invalid');
    }
    const body = (request.body ?? {}) as { query?: unknown; variables?: unknown };
    if (typeof body.query !== 'string') return reply.code(400).send({ errors: [{ message: 'query is required' }] });
    return gql.execute(body.query, (body.variables ?? undefined) as Record<string, unknown> | undefined, caller);
  });

  // A REST write of the contract: a note on a client (the CRM's first ERP write).
  app.post('/api/v1/client_notes', async (request, reply) => {
    count('write');
    const user = authUser(request.headers);
    if (!user) return reply.code(401).send({ error: 'invalid_api_key' });
    const body = (request.body ?? {}) as { client_id?: unknown; text?: unknown };
    if (typeof body.client_id !== 'string' || typeof body.text !== 'string') return reply.code(422).send({ error: 'client_id and text are required' });
    return reply.code(201).send({ id: `N-${randomBytes(4).toString('hex')}`, client_id: body.client_id, text: body.text });
  });

  // Orders (REST write with Idempotency-Key): one order per key; a repeat answers the same order with 200.
  app.post('/api/v1/orders', async (request, reply) => {
    count('write');
    const user = authUser(request.headers);
    if (!user) return reply.code(401).send({ error: 'invalid_api_key' });
    const key = request.headers['idempotency-key'];
    if (typeof key !== 'string' || key === '') return reply.code(422).send({ error: 'Idempotency-Key is required' });
    const body = (request.body ?? {}) as { lines?: unknown; currency?: unknown };
    if (!Array.isArray(body.lines) || typeof body.currency !== 'string') return reply.code(422).send({ error: 'currency and lines are required' });
    const earlier = controls.orders.get(key);
    if (earlier) return reply.code(200).send({ number: earlier.number, status: earlier.status });
    const created = { number: `PED-${String(controls.orders.size + 1).padStart(6, '0')}`, status: 'registered', body, userEmail: user.email };
    controls.orders.set(key, created);
    if (controls.hangAfterWrite > 0) {
      controls.hangAfterWrite--;
      await new Promise<void>((resolve) => {
        const release = () => {
          hanging.delete(release);
          resolve();
        };
        hanging.add(release);
        setTimeout(release, 30_000).unref();
      });
    }
    return reply.code(201).send({ number: created.number, status: created.status });
  });

  await app.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}`,
    data,
    controls,
    async close() {
      for (const release of hanging) release();
      await app.close();
    },
  };
}
