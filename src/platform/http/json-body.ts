/**
 * JSON request bodies: Fastify's own parser (prototype poisoning refused as before), plus a check that every
 * string is valid Unicode. JSON can carry a lone UTF-16 surrogate (`"\ud800"`), which is no character:
 * PostgreSQL refuses it in `jsonb` and Node turns it into U+FFFD in `text`, so it would fail deep in a
 * request (a 500) or change silently. It is refused up front: 400 `invalid_text`, naming the field.
 */
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.js';

/** A lone surrogate: a high one not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** Only an escape can put a surrogate in a body decoded from UTF-8 (bad bytes decode to U+FFFD). */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

function hasLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE.test(text);
}

/** `text` with what PostgreSQL cannot store as text, U+0000 and lone surrogates, each made U+FFFD. */
export function storableText(text: string): string {
  return text.replaceAll('\u0000', '\uFFFD').replace(LONE_SURROGATES, '\uFFFD');
}

/** The JSON pointer of the first key or string value of `value` that is not valid Unicode, if any. */
function illFormedPointer(value: unknown, pointer = ''): string | undefined {
  if (typeof value === 'string') return hasLoneSurrogate(value) ? pointer || '/' : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, item] of Object.entries(value)) {
    const at = `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
    if (hasLoneSurrogate(key)) return at;
    const found = illFormedPointer(item, at);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** 400 `invalid_text` for the body field at `pointer`. */
function invalidUnicode(pointer: string): AppError {
  return new AppError(400, 'invalid_text', 'Invalid text', 'Text must be valid Unicode: a lone UTF-16 surrogate is not a character', {
    errors: [{ field: `/body${pointer === '/' ? '' : pointer}`, message: 'is not valid Unicode (a lone surrogate)' }],
  });
}

/** Replaces the root JSON parser of `app` with Fastify's own followed by the Unicode check. */
export function installJsonBodyParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'ignore');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, raw, done) => {
    const body = raw as string;
    void parse(request, body, (err, value) => {
      if (err) return done(err, undefined);
      // The walk runs only for the rare body that escapes a surrogate at all.
      const pointer = SURROGATE_ESCAPE.test(body) ? illFormedPointer(value) : undefined;
      if (pointer !== undefined) return done(invalidUnicode(pointer), undefined);
      done(null, value);
    });
  });
}
