/**
 * The OpenAPI document true by construction (`HTTP_CONTRACT_CHECK`, on in the test suite and CI): every
 * response is checked against what the document says of its route before it leaves.
 * - Its status must be declared for the route (`response` of the route's schema after the conventions of
 *   openapi.ts filled in the shared errors; `2xx`/`4xx` ranges and `default` count). Undocumented routes
 *   (`/openapi.json`, `/docs`, hidden routes) and unmatched paths are checked only for the error shape.
 * - A 4xx/5xx must be `application/problem+json` with a string `code` (src/platform/http/error-handler.ts).
 * - A response whose declaration lists its media types (`content`: files, spreadsheets, media bytes) must
 *   carry one of them (ranges such as `image/*` and the any-type range count), so a validating proxy accepts it.
 * A violation is logged and handed to `onViolation` when given (the tests collect them and fail the file),
 * else the response is replaced by a 500 `contract_violation`, so that a caller cannot miss it.
 */
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';

/** One response the document does not describe. */
export interface ContractViolation {
  method: string;
  /** The route's path pattern (`/groups/:id`), or the requested path when no route matched. */
  route: string;
  status: number;
  problem: string;
}

export interface ContractCheckOptions {
  /** Receives each violation instead of the response being turned into a 500. */
  onViolation?: ((violation: ContractViolation) => void) | undefined;
}

function declares(statuses: string[], status: number): boolean {
  const code = String(status);
  return statuses.some((s) => s === code || s === 'default' || s.toLowerCase() === `${code[0]}xx`);
}

function problemOf(payload: unknown, contentType: string): string | undefined {
  if (!/^application\/problem\+json\b/.test(contentType)) return `error with content-type ${contentType || '(none)'}, not application/problem+json`;
  const text = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : undefined;
  if (text === undefined) return 'error body is not a serialized problem';
  try {
    const body = JSON.parse(text) as { code?: unknown };
    return typeof body.code === 'string' && body.code !== '' ? undefined : 'problem without a string `code`';
  } catch {
    return 'problem body is not JSON';
  }
}

/** Whether `contentType` (parameters ignored) is one of `declared`, media ranges (`image/*`, any type) included. */
function declaresContentType(declared: string[], contentType: string): boolean {
  const essence = contentType.split(';')[0]!.trim().toLowerCase();
  return declared.some((d) => {
    const type = d.toLowerCase();
    return type === essence || type === '*/*' || (type.endsWith('/*') && essence.startsWith(type.slice(0, -1)));
  });
}

/** The media types a declared response lists (`content`), or undefined when it lists none (a JSON schema). */
function declaredContentTypes(response: unknown): string[] | undefined {
  const content = (response as { content?: Record<string, unknown> } | undefined)?.content;
  return content === undefined ? undefined : Object.keys(content);
}

/** What is wrong with this response, or undefined when the document describes it. */
function check(request: FastifyRequest, reply: FastifyReply, payload: unknown): string | undefined {
  const status = reply.statusCode;
  if (status >= 400) {
    const wrongShape = problemOf(payload, String(reply.getHeader('content-type') ?? ''));
    if (wrongShape) return wrongShape;
  }
  const schema = request.routeOptions.schema as { hide?: boolean; response?: Record<string, unknown> } | undefined;
  if (!request.routeOptions.url || !schema || schema.hide) return undefined;
  const declared = Object.keys(schema.response ?? {});
  if (!declares(declared, status)) return `status ${status} not declared (declared: ${declared.join(', ')})`;
  const types = status < 400 ? declaredContentTypes(schema.response?.[String(status)]) : undefined;
  const contentType = String(reply.getHeader('content-type') ?? '');
  if (types !== undefined && !declaresContentType(types, contentType))
    return `content-type ${contentType || '(none)'} not declared (declared: ${types.join(', ')})`;
  return undefined;
}

/** Registers the check as an `onSend` hook on every route (register before the modules). */
export const contractCheck = fp<ContractCheckOptions>(
  async (app: FastifyInstance, options) => {
    app.addHook('onSend', async (request, reply, payload) => {
      const problem = check(request, reply, payload);
      if (!problem) return payload;
      const violation: ContractViolation = {
        method: request.method,
        route: request.routeOptions.url ?? request.url.split('?')[0]!,
        status: reply.statusCode,
        problem,
      };
      request.log.error({ contractViolation: violation }, 'response not described by the OpenAPI document');
      if (options.onViolation) {
        options.onViolation(violation);
        return payload;
      }
      // The error handler answers this 500 as problem+json, which passes the check on its way out.
      throw new AppError(500, 'contract_violation', 'Response not described by the API document', `${violation.method} ${violation.route}: ${problem}`);
    });
  },
  { name: 'contract-check' },
);
