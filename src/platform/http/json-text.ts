/**
 * Responses whose body is JSON text already (a page of stored items, `pageText`; a body assembled from
 * cached parts): sent as they are, without serializing again.
 */

/**
 * Sends `body`, JSON text, as `application/json; charset=utf-8`: Fastify serializes only payloads that are
 * not strings, so the route's response schema documents the body (OpenAPI, the contract tests) without
 * serializing it again; the text must match it. The route's typed `send` expects the schema's object; the
 * text is that object already serialized, hence the cast.
 */
export function sendJsonText<R extends { type(contentType: string): R; send(payload: never): R }>(reply: R, body: string): R {
  return reply.type('application/json; charset=utf-8').send(body as never);
}
