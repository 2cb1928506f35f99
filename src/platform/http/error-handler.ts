/**
 * The one place that builds error bodies: RFC 9457 `application/problem+json` with a stable `code` and
 * the request id. Fastify's own errors (validation, body parsing, rate limit, unknown route) are mapped
 * to the same shape; anything unexpected becomes a 500 that exposes nothing but `requestId`.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type FieldError } from '../errors.js';

const PROBLEM_BASE = 'https://crm-backend.dev/errors/';

interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail?: string;
  code: string;
  requestId: string;
  [extension: string]: unknown;
}

/** Builds the problem body of an `AppError` for a request. */
function toProblem(error: AppError, requestId: string): ProblemBody {
  return {
    ...error.extensions,
    type: PROBLEM_BASE + error.code.replace(/_/g, '-'),
    title: error.title,
    status: error.status,
    detail: error.message,
    code: error.code,
    requestId,
  };
}

/** Sends `error` as problem+json. */
function sendProblem(reply: FastifyReply, error: AppError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) void reply.header(name, value);
  return reply
    .status(error.status)
    .type('application/problem+json')
    .send(toProblem(error, String(reply.request.id)));
}

function fromFastifyError(error: FastifyError): AppError | undefined {
  if (error.validation) {
    // Fields are named `/query/...` as docs/api.md promises, not after Fastify's `querystring` key.
    const context = error.validationContext === 'querystring' ? 'query' : (error.validationContext ?? 'body');
    const errors: FieldError[] = error.validation.map((v) => {
      const missing = v.keyword === 'required' ? `/${String((v.params as { missingProperty?: string }).missingProperty)}` : '';
      const extra = v.keyword === 'additionalProperties' ? `/${String((v.params as { additionalProperty?: string }).additionalProperty)}` : '';
      return { field: `/${context}${v.instancePath}${missing}${extra}`, message: v.message ?? 'is invalid' };
    });
    return new AppError(400, 'validation_failed', 'Validation failed', 'The request is not valid', { errors });
  }
  if (error.statusCode === 429) {
    return new AppError(429, 'rate_limited', 'Too many requests', error.message);
  }
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return new AppError(415, 'unsupported_media_type', 'Unsupported media type', error.message);
  }
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return new AppError(413, 'payload_too_large', 'Payload too large', error.message);
  }
  // PostgreSQL stores no U+0000 in text (22021) or jsonb (22P05): the input is at fault, not the service.
  // Drizzle wraps driver errors, keeping the driver's in `cause`.
  const sqlState = (error.cause as { code?: unknown } | undefined)?.code ?? error.code;
  if (sqlState === '22021' || sqlState === '22P05') {
    return new AppError(400, 'invalid_text', 'Invalid text', 'Text must not contain the NUL character (U+0000)');
  }
  if (error.code?.startsWith('FST_ERR_CTP_') || (error.statusCode === 400 && error.code !== undefined)) {
    return new AppError(400, 'invalid_body', 'Invalid body', error.message);
  }
  return undefined;
}

/** Installs the error and not-found handlers on `app`. */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const known = error instanceof AppError ? error : fromFastifyError(error);
    if (known) {
      // A drain's refusals are expected during every rolling update: one info line each, no stack.
      if (known.code === 'service_draining') request.log.info({ code: known.code }, known.message);
      else if (known.status >= 500) request.log.error({ err: error }, known.message);
      return sendProblem(reply, known);
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendProblem(reply, new AppError(500, 'internal_error', 'Internal server error', 'An unexpected error occurred'));
  });
  app.setNotFoundHandler((request, reply) =>
    sendProblem(reply, new AppError(404, 'route_not_found', 'Not found', `No route ${request.method} ${request.url.split('?')[0]}`)),
  );
}
