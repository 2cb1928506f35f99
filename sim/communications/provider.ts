/**
 * The communications service's sending side, simulated over real HTTP (docs/communications-contract.md):
 * `POST /v1/{platform}/{accountId}/messages` answers like the WhatsApp Cloud API (a `wamid.` id, or
 * Meta-shaped errors), remembers `Idempotency-Key`s of accepted messages (a repeat returns the first
 * answer and delivers nothing twice), records every call and every delivery, and posts the status
 * webhooks (sent → delivered → read) back to the CRM, as the platform would.
 *
 * `controls` force failures for the next sends: rate limits (429, code 130429), re-engagement required
 * (131047), 5xx, a permanent refusal, or "accept, then never answer" (the message is delivered but the
 * caller sees a timeout, as when a worker dies after the platform accepted).
 */
import Fastify from 'fastify';
import { randomBytes } from 'node:crypto';
import { whatsAppStatus, metaStatus, whatsAppTemplateReview } from './payloads.js';

export interface ProviderCall {
  platform: string;
  accountId: string;
  idempotencyKey: string | null;
  /** W3C trace context of the call, when the caller traces. */
  traceparent: string | null;
  apiKey: string | null;
  body: Record<string, unknown>;
  /** `performance.timeOrigin + now()` at receipt, ms. */
  receivedAt: number;
  /** What the simulator answered: a message id, an error code, `hang` or `replay` (idempotent repeat). */
  outcome: string;
}

export type ForcedFailure = 'rate_limit' | 'reengagement' | 'server_error' | 'permanent' | 'accept_and_hang';

export interface ProviderSimulator {
  /** Base URL to configure as COMMUNICATIONS_BASE_URL. */
  url: string;
  /** Every call, in order of receipt. */
  calls: ProviderCall[];
  /** Messages the customer's phone "received" (accepted, first time per idempotency key), in order. */
  deliveries: ProviderCall[];
  /** The next `times` message sends fail as `failure` (read receipts are never failed). */
  failNext(failure: ForcedFailure, times?: number): void;
  /** Where status webhooks go (the CRM's base URL); null posts none. */
  setWebhookTarget(baseUrl: string | null, statuses?: ('sent' | 'delivered' | 'read')[]): void;
  /** Templates submitted, by id; `status` may be changed by tests (`APPROVED`, `REJECTED`, `PAUSED`). */
  templates: Map<string, { id: string; name: string; language: string; status: string; rejected_reason: string | null; body: unknown }>;
  /** Status answered to new templates (default `PENDING`). */
  setTemplateReview(status: string): void;
  /**
   * Concludes the platform's review of template `id`: sets its status and posts the template-status
   * webhook to the webhook target (resolves once the CRM answered it, with its HTTP status; null when no target is set).
   */
  reviewTemplate(id: string, event: string, reason?: string): Promise<number | null>;
  /** The webhook URL, platform token and logins the CRM registered (operator endpoints). */
  registered: { webhookUrl: string | null; metaToken: string | null; logins: number };
  /** Resolves once `n` deliveries were recorded (or rejects after `timeoutMs`). */
  waitForDeliveries(n: number, timeoutMs?: number): Promise<ProviderCall[]>;
  reset(): void;
  close(): Promise<void>;
}

const META_ERRORS: Record<Exclude<ForcedFailure, 'accept_and_hang'>, { status: number; code: number; message: string }> = {
  rate_limit: { status: 429, code: 130429, message: '(#130429) Rate limit hit' },
  reengagement: { status: 400, code: 131047, message: 'Re-engagement message' },
  server_error: { status: 500, code: 131000, message: 'Something went wrong' },
  permanent: { status: 400, code: 131026, message: 'Message undeliverable' },
};

/** The chat a message goes to: WhatsApp `to` without `+`, or the Send API's `recipient.id`. */
function recipientOf(body: Record<string, unknown>): string {
  if (typeof body.to === 'string') return body.to.replace(/^\+/, '');
  const recipient = body.recipient as { id?: unknown } | undefined;
  return typeof recipient?.id === 'string' ? recipient.id : '';
}

/** The simulator's bytes of platform media `id`: 8 KiB, PNG signature first. */
export function mediaBytes(id: string): Buffer {
  const bytes = Buffer.alloc(8192, id);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(bytes);
  return bytes;
}

export async function startProviderSimulator(opts: { apiKey?: string; port?: number } = {}): Promise<ProviderSimulator> {
  const app = Fastify({ logger: false });
  const calls: ProviderCall[] = [];
  const deliveries: ProviderCall[] = [];
  const accepted = new Map<string, string>();
  const failures: ForcedFailure[] = [];
  const hanging = new Set<() => void>();
  let webhook: { baseUrl: string; statuses: ('sent' | 'delivered' | 'read')[] } | null = null;
  let waiters: { n: number; resolve: () => void }[] = [];

  const postStatuses = (call: ProviderCall, id: string) => {
    if (webhook === null) return;
    const target = webhook;
    const recipient = recipientOf(call.body);
    void (async () => {
      let ts = Math.floor(Date.now() / 1000);
      for (const status of target.statuses) {
        const payload =
          call.platform === 'whatsapp'
            ? whatsAppStatus({ phoneNumberId: call.accountId }, { messageId: id, recipient, status, timestamp: ts++ })
            : status === 'sent'
              ? null
              : metaStatus(call.platform === 'instagram' ? 'instagram' : 'page', call.accountId, {
                  from: recipient,
                  kind: status === 'read' ? 'read' : 'delivery',
                  mids: [id],
                  watermark: Date.now(),
                });
        if (payload === null) continue;
        await fetch(`${target.baseUrl}/api/interactions/webhooks/communications`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(payload),
        }).catch(() => undefined);
      }
    })();
  };

  const templates: ProviderSimulator['templates'] = new Map();
  let templateReview = 'PENDING';
  const authorized = (key: unknown) => opts.apiKey === undefined || key === opts.apiKey;
  app.post<{ Body: { name: string; language: string } }>('/v1/whatsapp/templates', async (req, reply) => {
    if (!authorized(req.headers['x-api-key'])) return reply.code(401).send({ error: { message: 'Invalid API key', code: 190 } });
    const existing = [...templates.values()].find((t) => t.name === req.body.name && t.language === req.body.language);
    if (existing) return { id: existing.id, status: existing.status };
    const id = String(1_000_000_000 + templates.size);
    templates.set(id, {
      id,
      name: req.body.name,
      language: req.body.language,
      status: templateReview,
      rejected_reason: templateReview === 'REJECTED' ? 'INVALID_FORMAT' : null,
      body: req.body,
    });
    return { id, status: templateReview, category: (req.body as { category?: string }).category };
  });
  app.get('/v1/whatsapp/templates', async (req, reply) => {
    if (!authorized(req.headers['x-api-key'])) return reply.code(401).send({ error: { message: 'Invalid API key', code: 190 } });
    return { data: [...templates.values()].map(({ body: _body, ...t }) => t) };
  });
  app.put<{ Params: { id: string }; Body: object }>('/v1/whatsapp/templates/:id', async (req, reply) => {
    if (!authorized(req.headers['x-api-key'])) return reply.code(401).send({ error: { message: 'Invalid API key', code: 190 } });
    const template = templates.get(req.params.id);
    if (!template) return reply.code(404).send({ error: { message: 'Template not found', code: 100 } });
    Object.assign(template, { status: templateReview, body: Object.assign({}, template.body, req.body) });
    return { success: true, status: templateReview };
  });
  app.delete<{ Params: { id: string } }>('/v1/whatsapp/templates/:id', async (req, reply) => {
    if (!authorized(req.headers['x-api-key'])) return reply.code(401).send({ error: { message: 'Invalid API key', code: 190 } });
    if (!templates.delete(req.params.id)) return reply.code(404).send({ error: { message: 'Template not found', code: 100 } });
    return { success: true };
  });

  const registered = { webhookUrl: null as string | null, metaToken: null as string | null, logins: 0 };
  app.put<{ Body: { url: string } }>('/v1/webhook', async (req, reply) => {
    if (!authorized(req.headers['x-api-key'])) return reply.code(401).send({ error: { message: 'Invalid API key', code: 190 } });
    registered.webhookUrl = req.body.url;
    return { success: true };
  });
  app.put<{ Body: { access_token: string } }>('/v1/meta-token', async (req, reply) => {
    if (!authorized(req.headers['x-api-key'])) return reply.code(401).send({ error: { message: 'Invalid API key', code: 190 } });
    registered.metaToken = req.body.access_token;
    return { success: true };
  });
  app.post('/v1/login', async (req, reply) => {
    if (!authorized(req.headers['x-api-key'])) return reply.code(401).send({ error: { message: 'Invalid API key', code: 190 } });
    registered.logins++;
    return { communications_entity_id: String(req.headers['x-communications-entity-id'] ?? 'sim-entity-1') };
  });

  // Media: deterministic bytes per id (a PNG signature, then the id repeated), with byte ranges.
  app.get<{ Params: { id: string } }>('/v1/media/:id', async (req, reply) => {
    if (!authorized(req.headers['x-api-key'])) return reply.code(401).send({ error: { message: 'Invalid API key', code: 190 } });
    if (req.params.id.startsWith('missing')) return reply.code(404).send({ error: { message: 'Unknown media', code: 100 } });
    const bytes = mediaBytes(req.params.id);
    void reply.header('content-type', 'image/png').header('etag', `"sim-${req.params.id}"`).header('accept-ranges', 'bytes');
    const range = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? '');
    if (req.headers.range === undefined) return reply.header('content-length', bytes.length).send(bytes);
    const start = range?.[1] ? Number(range[1]) : bytes.length - Number(range?.[2] ?? 0);
    const end = range?.[1] && range[2] ? Math.min(Number(range[2]), bytes.length - 1) : bytes.length - 1;
    if (range === null || start >= bytes.length || start > end) return reply.code(416).header('content-range', `bytes */${bytes.length}`).send();
    return reply
      .code(206)
      .header('content-range', `bytes ${start}-${end}/${bytes.length}`)
      .header('content-length', end - start + 1)
      .send(bytes.subarray(start, end + 1));
  });

  app.post<{ Params: { platform: string; accountId: string }; Body: Record<string, unknown> }>('/v1/:platform/:accountId/messages', async (req, reply) => {
    const header = (name: string) => (typeof req.headers[name] === 'string' ? req.headers[name] : null);
    const call: ProviderCall = {
      platform: req.params.platform,
      accountId: req.params.accountId,
      idempotencyKey: header('idempotency-key'),
      traceparent: header('traceparent'),
      apiKey: header('x-api-key'),
      body: req.body,
      receivedAt: performance.timeOrigin + performance.now(),
      outcome: '',
    };
    calls.push(call);
    if (opts.apiKey !== undefined && call.apiKey !== opts.apiKey) {
      call.outcome = 'unauthorized';
      return reply.code(401).send({ error: { message: 'Invalid API key', type: 'OAuthException', code: 190 } });
    }
    if (req.body.status === 'read') {
      call.outcome = 'read';
      return { success: true };
    }
    if (req.body.sender_action !== undefined) {
      call.outcome = typeof req.body.sender_action === 'string' ? req.body.sender_action : 'sender_action';
      return { recipient_id: (req.body.recipient as { id?: string } | undefined)?.id };
    }
    const replay = call.idempotencyKey !== null ? accepted.get(call.idempotencyKey) : undefined;
    if (replay !== undefined) {
      call.outcome = 'replay';
      return answer(replay, call);
    }
    const failure = failures.shift();
    if (failure !== undefined && failure !== 'accept_and_hang') {
      const e = META_ERRORS[failure];
      call.outcome = String(e.code);
      if (failure === 'rate_limit') void reply.header('retry-after', '1');
      return reply
        .code(e.status)
        .send({ error: { message: e.message, type: 'OAuthException', code: e.code, fbtrace_id: randomBytes(8).toString('base64url') } });
    }
    const id = `wamid.SIM${randomBytes(18).toString('base64url')}`;
    if (call.idempotencyKey !== null) accepted.set(call.idempotencyKey, id);
    call.outcome = id;
    deliveries.push(call);
    waiters = waiters.filter((w) => (deliveries.length >= w.n ? (w.resolve(), false) : true));
    postStatuses(call, id);
    if (failure === 'accept_and_hang') {
      call.outcome = `${id} (no answer)`;
      await new Promise<void>((resolve) => hanging.add(resolve));
      return reply.code(503).send({ error: { message: 'closing', code: 2 } });
    }
    return answer(id, call);
  });

  function answer(id: string, call: ProviderCall) {
    const to = typeof call.body.to === 'string' ? call.body.to : '';
    return { messaging_product: 'whatsapp', contacts: [{ input: to, wa_id: to.replace(/^\+/, '') }], messages: [{ id }] };
  }

  const address = await app.listen({ host: '127.0.0.1', port: opts.port ?? 0 });
  return {
    url: address,
    calls,
    deliveries,
    templates,
    registered,
    setTemplateReview(status) {
      templateReview = status;
    },
    async reviewTemplate(id, event, reason) {
      const template = templates.get(id);
      if (!template) throw new Error(`the simulator holds no template ${id}`);
      template.status = event;
      template.rejected_reason = event === 'REJECTED' ? (reason ?? 'INVALID_FORMAT') : null;
      if (webhook === null) return null;
      const payload = whatsAppTemplateReview({
        templateId: id,
        name: template.name,
        language: template.language,
        event,
        ...(reason !== undefined ? { reason } : {}),
      });
      const res = await fetch(`${webhook.baseUrl}/api/interactions/webhooks/communications`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(payload),
      });
      return res.status;
    },
    failNext(failure, times = 1) {
      for (let i = 0; i < times; i++) failures.push(failure);
    },
    setWebhookTarget(baseUrl, statuses = ['sent', 'delivered', 'read']) {
      webhook = baseUrl === null ? null : { baseUrl, statuses };
    },
    waitForDeliveries(n, timeoutMs = 10_000) {
      if (deliveries.length >= n) return Promise.resolve(deliveries.slice());
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${deliveries.length} of ${n} deliveries after ${timeoutMs} ms`)), timeoutMs);
        waiters.push({ n, resolve: () => (clearTimeout(timer), resolve(deliveries.slice())) });
      });
    },
    reset() {
      calls.length = 0;
      deliveries.length = 0;
      failures.length = 0;
      accepted.clear();
    },
    async close() {
      for (const release of hanging) release();
      await app.close();
    },
  };
}
