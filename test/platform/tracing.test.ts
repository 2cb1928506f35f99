/**
 * OpenTelemetry traces, exported to an in-memory exporter: an HTTP request continues the caller's trace
 * (`traceparent`) and holds the statements it ran; a queue job is a span with the outbound call to the
 * communications service inside it, whose `traceparent` reaches the service; a login's call to the ERP
 * is a span of the login request, and its `traceparent` reaches the ERP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { SpanKind } from '@opentelemetry/api';
import { createTestApp, type TestContext } from '../helpers/test-app.js';
import { createTestDatabase } from '../helpers/test-db.js';
import { bearer, makeEntity, makeMember, tokenFor } from '../helpers/factories.js';
import { makeChannelAccount } from '../helpers/conversation-factories.js';
import { waitFor } from '../helpers/interactions.js';
import { startProviderSimulator, type ProviderSimulator } from '../../sim/communications/provider.js';
import { whatsAppMessage } from '../../sim/communications/payloads.js';
import { startTracing, type Tracing } from '../../src/platform/telemetry/tracing.js';
import { erpEnv, erpUserFor, linkEntity, loginWithErp, startTestErp } from '../helpers/erp.js';
import type { ErpSimulator } from '../../sim/erp/server.js';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const exporter = new InMemorySpanExporter();
let tracing: Tracing;
let sim: ProviderSimulator;
let erp: ErpSimulator;
let erpProxy: Server;
/** `traceparent` of every call that reached the ERP (through the recording proxy in front of its simulator). */
const erpTraceparents: (string | undefined)[] = [];
let t: TestContext;
let token: string;
let entityId: number;

beforeAll(async () => {
  tracing = startTracing({ serviceName: 'crm-test', processors: [new SimpleSpanProcessor(exporter)] });
  sim = await startProviderSimulator({ apiKey: 'trace-key' });
  erp = await startTestErp();
  const target = new URL(erp.url);
  erpProxy = createServer((req, res) => {
    erpTraceparents.push(req.headers.traceparent as string | undefined);
    const forward = request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => erpProxy.listen(0, '127.0.0.1', resolve));
  const proxied = { ...erp, url: `http://127.0.0.1:${(erpProxy.address() as AddressInfo).port}` };
  t = await createTestApp({
    testDb: await createTestDatabase({ traced: true }),
    env: { OTEL_TRACES_ENABLED: 'true', COMMUNICATIONS_BASE_URL: sim.url, COMMUNICATIONS_API_KEY: 'trace-key', ...erpEnv(proxied) },
    startQueue: true,
  });
  entityId = (await makeEntity(t.database.db, 'Traced')).id;
  await makeChannelAccount(t.database.db, { entityId, externalAccountId: 'PN-TRACE' });
  token = await tokenFor(t.app, await makeMember(t.database.db, { entityId }));
});
afterAll(async () => {
  await t?.close();
  await t?.testDb.close();
  await sim?.close();
  erpProxy?.closeAllConnections();
  await new Promise((resolve) => (erpProxy ? erpProxy.close(resolve) : resolve(undefined)));
  await erp?.close();
  await tracing?.shutdown();
});

const spans = () => exporter.getFinishedSpans();
const childrenOf = (parent: ReadableSpan) => spans().filter((s) => s.parentSpanContext?.spanId === parent.spanContext().spanId);
function descendantsOf(root: ReadableSpan): ReadableSpan[] {
  const out: ReadableSpan[] = [];
  for (const child of childrenOf(root)) out.push(child, ...descendantsOf(child));
  return out;
}

describe('traces', () => {
  it("continues the caller's trace through a request, its statements, the send job and the call to the communications service", async () => {
    const webhook = await t.app.inject({
      method: 'POST',
      url: '/api/interactions/webhooks/communications',
      payload: whatsAppMessage({ phoneNumberId: 'PN-TRACE' }, { from: '50255566666', text: 'hola' }),
    });
    expect(webhook.statusCode).toBe(200);
    await t.app.interactionsWorker.idle();
    const conversation = (await t.app.inject({ method: 'GET', url: '/api/interactions/conversations', headers: bearer(token) })).json().data[0].id as number;
    exporter.reset();

    const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
    const sent = await t.app.inject({
      method: 'POST',
      url: `/api/interactions/conversations/${conversation}/messages/text`,
      headers: { ...bearer(token), traceparent: `00-${callerTrace}-00f067aa0ba902b7-01` },
      payload: { body: 'con traza' },
    });
    expect(sent.statusCode).toBe(202);
    await sim.waitForDeliveries(1);
    const job = await waitFor(() => spans().find((s) => s.name === 'job interactions.message.send'));

    // The request: a server span in the caller's trace, with the statements it ran below it.
    const request = spans().find((s) => s.kind === SpanKind.SERVER && s.spanContext().traceId === callerTrace);
    expect(request).toBeDefined();
    const statements = descendantsOf(request!)
      .filter((s) => s.name === 'db.query')
      .map((s) => String(s.attributes['db.query.text']));
    expect(statements.some((text) => /insert into message \(/i.test(text))).toBe(true);
    expect(statements.some((text) => /INSERT INTO pgboss\.job/i.test(text))).toBe(true);

    // The job: its own span, the call to the communications service inside it, the trace carried to the service.
    expect(job.kind).toBe(SpanKind.CONSUMER);
    expect(job.attributes['messaging.destination.name']).toBe('interactions.message.send');
    const call = descendantsOf(job).find((s) => s.name === 'communications POST /v1/whatsapp/{account}/messages');
    expect(call).toMatchObject({
      kind: SpanKind.CLIENT,
      attributes: expect.objectContaining({ 'http.response.status_code': 200, 'peer.service': 'communications' }),
    });
    expect(sim.deliveries[0]!.traceparent).toMatch(new RegExp(`^00-${job.spanContext().traceId}-${call!.spanContext().spanId}-01$`));
    // The claim of the message (one statement for the jobs of a batch, under the job that started it).
    expect(descendantsOf(job).some((s) => s.name === 'db.query' && /update message m set send_attempts/i.test(String(s.attributes['db.query.text'])))).toBe(
      true,
    );
  });

  it("holds a login's calls to the ERP as client spans of the request, and carries the trace to the ERP", async () => {
    const member = await makeMember(t.database.db, { entityId });
    await linkEntity(t.database.db, erp, entityId, 9301);
    erpUserFor(erp, member, [9301]);
    exporter.reset();
    erpTraceparents.length = 0;
    const login = await loginWithErp(t.app, { email: member.email, password: member.password, entityId });
    expect(login.status).toBe(200);
    const request = await waitFor(() => spans().find((s) => s.kind === SpanKind.SERVER && s.attributes['http.route'] === '/api/auth/login'));
    const calls = descendantsOf(request).filter((s) => s.kind === SpanKind.CLIENT && s.attributes['peer.service'] === 'erp');
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) expect(call.attributes['http.response.status_code']).toBe(200);
    // Every call that reached the ERP named one of those spans as its parent, in the request's trace.
    const expected = calls.map((c) => `00-${request.spanContext().traceId}-${c.spanContext().spanId}-01`);
    expect(erpTraceparents.length).toBe(calls.length);
    for (const header of erpTraceparents) expect(expected).toContain(header);
  });

  it("records a failed request's status and traces nothing for probes and scrapes", async () => {
    exporter.reset();
    expect((await t.app.inject({ method: 'GET', url: '/api/interactions/conversations/999999', headers: bearer(token) })).statusCode).toBe(404);
    await t.app.inject({ method: 'GET', url: '/metrics' });
    await t.app.inject({ method: 'GET', url: '/healthz' });
    const servers = await waitFor(() => {
      const found = spans().filter((s) => s.kind === SpanKind.SERVER);
      return found.length > 0 ? found : undefined;
    });
    expect(servers).toHaveLength(1);
    expect(servers[0]!.attributes['http.response.status_code']).toBe(404);
  });
});
