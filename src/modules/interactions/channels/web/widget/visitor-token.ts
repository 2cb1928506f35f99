/**
 * Website chat credentials (issue 32), all HMAC-SHA256 and stateless except the token generation:
 * - the visitor token: a jose HS256 JWT (`aud: "widget"`) scoped to one visitor of one web account of one
 *   entity (and so to one conversation: account + chat id), 1 hour; its key is derived from `JWT_SECRET`
 *   for this purpose only, so a staff token is never a visitor token nor the reverse;
 * - the upload ticket: proves that a media object was presigned for this visitor (a visitor attaches only
 *   its own uploads, never another media object of the entity);
 * - the identity signature a site computes: hex HMAC-SHA256 of `<timestamp>.<identifier>` with the account's
 *   secret, the timestamp in Unix seconds; it holds for a while after that time (issue 48), so a copied
 *   signature is not a permanent login for its identifier.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { SignJWT, errors as joseErrors, jwtVerify } from 'jose';
import { unauthorized } from '../../../../../platform/errors.js';

/** Seconds a visitor token is valid; the widget resumes (and so rotates it) before then. */
const VISITOR_TOKEN_SECONDS = 60 * 60;
/** How long after its expiry a visitor token may still resume its visitor (a returning visitor). */
const RESUME_WINDOW_SECONDS = 30 * 24 * 60 * 60;
const AUDIENCE = 'widget';

/** What a visitor token names: visitor, entity, web account, chat id, token generation. */
interface VisitorClaims {
  vid: number;
  ent: number;
  acc: number;
  chat: string;
  gen: number;
}

export interface VisitorTokens {
  sign(claims: VisitorClaims): Promise<{ token: string; expiresIn: number }>;
  /** A valid, unexpired token's claims; 401 `invalid_visitor_token` or `visitor_token_expired`. */
  verify(token: string): Promise<VisitorClaims>;
  /** A token's claims for a resume: its signature must hold; it may have expired up to 30 days ago. */
  verifyForResume(token: string): Promise<VisitorClaims>;
  /** The upload ticket of media `mediaId` presigned for visitor `visitorId`. */
  uploadTicket(visitorId: number, mediaId: number): string;
  checkUploadTicket(visitorId: number, mediaId: number, ticket: string): boolean;
}

export function createVisitorTokens(jwtSecret: string): VisitorTokens {
  const key = createHmac('sha256', jwtSecret).update('crm-backend:widget-visitor-token').digest();
  const ticketKey = createHmac('sha256', jwtSecret).update('crm-backend:widget-upload-ticket').digest();
  const invalid = () => unauthorized('invalid_visitor_token', 'The visitor token is not valid');
  const verifyWith = async (token: string, tolerance: number): Promise<VisitorClaims> => {
    try {
      const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'], audience: AUDIENCE, requiredClaims: ['exp'], clockTolerance: tolerance });
      const { vid, ent, acc, chat, gen } = payload as Record<string, unknown>;
      if (![vid, ent, acc, gen].every((n) => Number.isInteger(n)) || typeof chat !== 'string') throw invalid();
      return { vid, ent, acc, chat, gen } as VisitorClaims;
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) throw unauthorized('visitor_token_expired', 'The visitor token has expired: resume the session');
      if (error instanceof joseErrors.JOSEError) throw invalid();
      throw error;
    }
  };
  const ticketOf = (visitorId: number, mediaId: number) => createHmac('sha256', ticketKey).update(`${visitorId}:${mediaId}`).digest('base64url');
  return {
    async sign(claims) {
      const token = await new SignJWT({ ...claims })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setAudience(AUDIENCE)
        .setIssuedAt()
        .setExpirationTime(`${VISITOR_TOKEN_SECONDS}s`)
        .sign(key);
      return { token, expiresIn: VISITOR_TOKEN_SECONDS };
    },
    verify: (token) => verifyWith(token, 0),
    verifyForResume: (token) => verifyWith(token, RESUME_WINDOW_SECONDS),
    uploadTicket: ticketOf,
    checkUploadTicket(visitorId, mediaId, ticket) {
      return safeEqual(ticketOf(visitorId, mediaId), ticket);
    },
  };
}

/** Seconds a signature's timestamp may be ahead of this service's clock (the site's clock may run fast). */
const IDENTITY_CLOCK_SKEW_SECONDS = 5 * 60;

/**
 * Checks a site's proof that its logged-in customer is `identity.identifier`: `signature` (hex) must be
 * HMAC-SHA256(`secret`, `<timestamp>.<identifier>`) and `timestamp` (Unix seconds) at most `maxAgeSeconds`
 * old at `now` (ms). 401 `invalid_identity_signature` or `identity_signature_expired`.
 */
export function checkIdentitySignature(
  secret: string | undefined,
  identity: { identifier: string; timestamp: number; signature: string },
  maxAgeSeconds: number,
  now: number = Date.now(),
): void {
  const expected = secret === undefined ? undefined : createHmac('sha256', secret).update(`${identity.timestamp}.${identity.identifier}`, 'utf8').digest('hex');
  if (expected === undefined || !safeEqual(expected, identity.signature.trim().toLowerCase()))
    throw unauthorized('invalid_identity_signature', 'The identity signature does not match the identifier and timestamp');
  const age = now / 1000 - identity.timestamp;
  if (age > maxAgeSeconds || age < -IDENTITY_CLOCK_SKEW_SECONDS)
    throw unauthorized('identity_signature_expired', 'The identity signature has expired: the site signs the identifier again at each page load');
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
