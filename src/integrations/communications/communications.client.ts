/**
 * Typed client of the communications service (docs/communications-contract.md): sends platform messages
 * and read receipts for an entity's channel account. Every call has a timeout (AbortSignal); every send
 * carries an `Idempotency-Key`, so that a send repeated after a timeout or a crash returns the first
 * answer instead of delivering twice. Failures surface as `CommunicationsError` (see its kinds).
 */
import { OutboundRefusedError, type GuardedFetch } from '../../platform/http/outbound.js';
import { withClientSpan } from '../../platform/telemetry/tracing.js';
import { CommunicationsError, classifyFailure } from './communications.errors.js';

/** Where and how to call the communications service for one entity (its resolved config). */
export interface CommunicationsTarget {
  /** Base URL without trailing slash, e.g. `https://comms.example.com`. */
  baseUrl: string;
  apiKey: string;
  /** The entity's id in the communications service (`x-communications-entity-id`), when known. */
  communicationsEntityId: string | null;
  /** The entity's application id there (`x-external-app-id`), when known. */
  externalAppId: string | null;
}

/** The platform a channel account belongs to, as the service's paths name it. */
export type CommunicationsPlatform = 'whatsapp' | 'messenger' | 'instagram';

/** The channel account a message leaves from: its platform and id there (WhatsApp phone_number_id, page id, Instagram account id). */
interface SendingAccount {
  platform: CommunicationsPlatform;
  accountId: string;
}

export interface CommunicationsClient {
  /**
   * Sends `message` (a WhatsApp Cloud API message object, or its Messenger/Instagram adaptation) from
   * `account`. Returns the platform's message id. Throws `CommunicationsError`.
   */
  sendMessage(
    target: CommunicationsTarget,
    account: SendingAccount,
    input: { idempotencyKey: string; message: Record<string, unknown> },
  ): Promise<{ providerMessageId: string }>;
  /**
   * Sends the platform's read receipt: WhatsApp marks the inbound message `providerMessageId` read
   * (`status: read`); Messenger and Instagram mark the chat with `recipientId` seen (`sender_action: mark_seen`).
   * Throws `CommunicationsError`.
   */
  markRead(
    target: CommunicationsTarget,
    account: SendingAccount,
    input: { idempotencyKey: string; providerMessageId: string; recipientId: string },
  ): Promise<void>;
  /** Submits a template for the platform's review; returns its id there and its first status. */
  createTemplate(target: CommunicationsTarget, template: ProviderTemplateInput): Promise<{ providerTemplateId: string; status: string }>;
  /** The entity's templates there, with their review status. */
  listTemplates(target: CommunicationsTarget): Promise<ProviderTemplate[]>;
  /** Submits a changed template for review again; returns its new status. */
  updateTemplate(
    target: CommunicationsTarget,
    providerTemplateId: string,
    template: Pick<ProviderTemplateInput, 'category' | 'components'>,
  ): Promise<{ status: string }>;
  deleteTemplate(target: CommunicationsTarget, providerTemplateId: string): Promise<void>;
  /** Registers `url` as the webhook the service posts the entity's platform events to. */
  registerWebhook(target: CommunicationsTarget, url: string): Promise<void>;
  /** Hands the service a new platform access token for the entity's accounts. */
  rotateMetaToken(target: CommunicationsTarget, token: string): Promise<void>;
  /** Opens (or refreshes) the entity's session at the service; answers the entity's id there. */
  login(target: CommunicationsTarget): Promise<{ communicationsEntityId: string | null }>;
  /**
   * Streams platform media `providerMediaId` (a `Range` header is forwarded). Answers the status (200, 206
   * or 416), the entity headers and the body stream; throws `CommunicationsError` for anything else.
   */
  fetchMedia(target: CommunicationsTarget, providerMediaId: string, options: { range?: string | undefined }): Promise<MediaStream>;
}

export interface MediaStream {
  status: 200 | 206 | 416;
  /** `content-type`, `content-length`, `content-range`, `etag`, `last-modified` when the service gave them. */
  headers: Record<string, string>;
  body: ReadableStream<Uint8Array> | null;
}

/** A template as submitted (WhatsApp's template model). */
interface ProviderTemplateInput {
  name: string;
  language: string;
  category: string;
  parameter_format: string;
  components: unknown[];
}

/** A template as the communications service reports it; `status` is the platform's (e.g. `APPROVED`). */
interface ProviderTemplate {
  id: string;
  name: string;
  language: string;
  status: string;
  rejected_reason?: string | null;
}

export interface CommunicationsClientOptions {
  /** Per-call timeout in ms (default 10 000). */
  timeoutMs?: number;
  /**
   * The guarded outbound client (platform/http/outbound) every call goes through: the base URL is
   * operator-set, so private addresses are refused unless allowed and redirects are never followed
   * (the `X-Api-Key` never reaches another origin). Refusals surface as `CommunicationsError` `rejected`.
   */
  fetch: GuardedFetch;
}

export function createCommunicationsClient(options: CommunicationsClientOptions): CommunicationsClient {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const fetch = options.fetch;

  function post(target: CommunicationsTarget, path: string, body: unknown, idempotencyKey: string | null, method = 'POST'): Promise<unknown> {
    return withClientSpan(
      'communications',
      `${method} ${path.replace(/\/[^/]*\/messages$/, '/{account}/messages')}`,
      { 'http.request.method': method },
      (traceHeaders, answered) => call(target, path, body, idempotencyKey, method, traceHeaders, answered),
    );
  }

  async function call(
    target: CommunicationsTarget,
    path: string,
    body: unknown,
    idempotencyKey: string | null,
    method: string,
    traceHeaders: Record<string, string>,
    answered: (status: number) => void,
  ): Promise<unknown> {
    const headers: Record<string, string> = { 'x-api-key': target.apiKey, ...traceHeaders };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (idempotencyKey !== null) headers['idempotency-key'] = idempotencyKey;
    if (target.communicationsEntityId !== null) headers['x-communications-entity-id'] = target.communicationsEntityId;
    if (target.externalAppId !== null) headers['x-external-app-id'] = target.externalAppId;
    let res: Response;
    try {
      res = await fetch(`${target.baseUrl}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      throw unreachable(err, timeoutMs);
    }
    answered(res.status);
    let parsed: unknown = null;
    try {
      const text = await res.text();
      parsed = text === '' ? null : (JSON.parse(text) as unknown);
    } catch (err) {
      const timedOut = (err as Error).name === 'TimeoutError' || (err as Error).name === 'AbortError';
      if (timedOut) throw new CommunicationsError('timeout', `answer not complete within ${timeoutMs} ms`, { status: res.status });
      if (res.ok) throw new CommunicationsError('transient', 'communications service answered a body that is not JSON', { status: res.status });
    }
    if (!res.ok) throw classifyFailure(res.status, parsed, res.headers.get('retry-after'));
    return parsed;
  }

  return {
    async sendMessage(target, account, input) {
      const body = await post(target, `/v1/${account.platform}/${encodeURIComponent(account.accountId)}/messages`, input.message, input.idempotencyKey);
      const id = (body as { messages?: { id?: unknown }[] } | null)?.messages?.[0]?.id;
      if (typeof id !== 'string' || id === '')
        throw new CommunicationsError('transient', 'communications service accepted the message without a message id', { status: 200, body });
      return { providerMessageId: id };
    },
    async markRead(target, account, input) {
      // Both take read receipts on the messages endpoint: the Cloud API's mark_as_read.json, the Send API's sender action.
      const body =
        account.platform === 'whatsapp'
          ? { messaging_product: 'whatsapp', status: 'read', message_id: input.providerMessageId }
          : { recipient: { id: input.recipientId }, sender_action: 'mark_seen' };
      await post(target, `/v1/${account.platform}/${encodeURIComponent(account.accountId)}/messages`, body, input.idempotencyKey);
    },
    async createTemplate(target, template) {
      const body = (await post(target, '/v1/whatsapp/templates', template, `template:${template.name}:${template.language}`)) as {
        id?: unknown;
        status?: unknown;
      } | null;
      if (typeof body?.id !== 'string' || typeof body.status !== 'string')
        throw new CommunicationsError('transient', 'communications service answered a template without id or status', { status: 200, body });
      return { providerTemplateId: body.id, status: body.status };
    },
    async listTemplates(target) {
      const body = (await post(target, '/v1/whatsapp/templates', undefined, null, 'GET')) as { data?: unknown } | null;
      if (!Array.isArray(body?.data))
        throw new CommunicationsError('transient', 'communications service answered templates without data', { status: 200, body });
      return (body.data as ProviderTemplate[]).filter((t) => typeof t.id === 'string' && typeof t.status === 'string');
    },
    async fetchMedia(target, providerMediaId, options) {
      const headers: Record<string, string> = { 'x-api-key': target.apiKey };
      if (options.range !== undefined) headers.range = options.range;
      let res: Response;
      try {
        res = await fetch(`${target.baseUrl}/v1/media/${encodeURIComponent(providerMediaId)}`, { headers, signal: AbortSignal.timeout(timeoutMs) });
      } catch (err) {
        throw unreachable(err, timeoutMs);
      }
      if (res.status !== 200 && res.status !== 206 && res.status !== 416) {
        const text = await res.text().catch(() => '');
        throw classifyFailure(res.status, parseJson(text), res.headers.get('retry-after'));
      }
      const out: Record<string, string> = {};
      for (const name of ['content-type', 'content-length', 'content-range', 'etag', 'last-modified']) {
        const value = res.headers.get(name);
        if (value !== null) out[name] = value;
      }
      return { status: res.status, headers: out, body: res.body };
    },
    async registerWebhook(target, url) {
      await post(target, '/v1/webhook', { url }, null, 'PUT');
    },
    async rotateMetaToken(target, token) {
      await post(target, '/v1/meta-token', { access_token: token }, null, 'PUT');
    },
    async login(target) {
      const body = (await post(target, '/v1/login', {}, null)) as { communications_entity_id?: unknown } | null;
      const id = body?.communications_entity_id;
      return { communicationsEntityId: typeof id === 'string' || typeof id === 'number' ? String(id) : null };
    },
    async updateTemplate(target, providerTemplateId, template) {
      const body = (await post(target, `/v1/whatsapp/templates/${encodeURIComponent(providerTemplateId)}`, template, null, 'PUT')) as {
        status?: unknown;
      } | null;
      if (typeof body?.status !== 'string')
        throw new CommunicationsError('transient', 'communications service answered a template update without status', { status: 200, body });
      return { status: body.status };
    },
    async deleteTemplate(target, providerTemplateId) {
      await post(target, `/v1/whatsapp/templates/${encodeURIComponent(providerTemplateId)}`, undefined, null, 'DELETE');
    },
  };
}

/**
 * A call that got no answer: `timeout` when the client gave up, `permanent` when the guard refused the
 * address, `transient` for network errors (named by their code, never by the address they tried).
 */
function unreachable(err: unknown, timeoutMs: number): CommunicationsError {
  if (err instanceof OutboundRefusedError) return new CommunicationsError('permanent', `communications base URL refused: ${err.message}`, { status: null });
  const code = (err as { code?: unknown; cause?: { code?: unknown } }).code ?? (err as { cause?: { code?: unknown } }).cause?.code;
  if (typeof code === 'string' && (err as Error).name !== 'TimeoutError' && (err as Error).name !== 'AbortError') {
    return new CommunicationsError('transient', `communications service unreachable (${code})`, { status: null });
  }
  const timedOut = (err as Error).name === 'TimeoutError' || (err as Error).name === 'AbortError';
  return new CommunicationsError(
    timedOut ? 'timeout' : 'transient',
    timedOut ? `no answer within ${timeoutMs} ms` : `communications service unreachable: ${(err as Error).message}`,
    { status: null },
  );
}

/** `text` as JSON, or the text itself when it is not JSON (null when empty). */
function parseJson(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
