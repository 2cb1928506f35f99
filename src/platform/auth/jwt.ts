/**
 * CRM session tokens (SPEC "CRM session token"): HS256 with the algorithm pinned on verify, 8-hour
 * lifetime, exactly the SPEC payload fields and never any permission.
 */
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import { LRUCache } from 'lru-cache';
import { unauthorized } from '../errors.js';

const TOKEN_LIFETIME_SECONDS = 8 * 60 * 60;

/** The SPEC payload table, field for field. */
export interface CrmTokenClaims {
  id: number;
  email: string;
  erp_user_id: number | null;
  role_id: number | null;
  role_name: string | null;
  entity_id: number;
  employee_role_id: number | null;
  user_role_id: number | null;
  role_source: string | null;
  employee_id: number;
  erp_employee_id: number | null;
  client_kind: string;
}

export interface TokenService {
  /** Signs `claims`; `exp` is now + 8 h. */
  sign(claims: CrmTokenClaims): Promise<{ token: string; expiresIn: number }>;
  /** Verifies signature, algorithm and expiry. Throws 401 `token_expired` or `invalid_token`. */
  verify(token: string): Promise<CrmTokenClaims>;
}

export function createTokenService(secret: string, lifetimeSeconds = TOKEN_LIFETIME_SECONDS): TokenService {
  const key = new TextEncoder().encode(secret);
  // A token string verified once is the same signature next time: remember its claims until it expires,
  // so the hot path skips the HMAC. Expiry is still checked on every hit.
  const verified = new LRUCache<string, CrmTokenClaims & { exp: number }>({ max: 10_000 });
  return {
    async sign(claims) {
      const token = await new SignJWT({ ...claims })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setIssuedAt()
        .setSubject(String(claims.id))
        .setExpirationTime(`${lifetimeSeconds}s`)
        .sign(key);
      return { token, expiresIn: lifetimeSeconds };
    },
    async verify(token) {
      const cached = verified.get(token);
      if (cached) {
        if (cached.exp * 1000 <= Date.now()) {
          verified.delete(token);
          throw unauthorized('token_expired', 'The token has expired');
        }
        return cached;
      }
      try {
        const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'], requiredClaims: ['exp'] });
        if (!isClaims(payload)) throw unauthorized('invalid_token', 'The token payload is not a CRM session');
        verified.set(token, payload as unknown as CrmTokenClaims & { exp: number });
        return payload;
      } catch (error) {
        if (error instanceof joseErrors.JWTExpired) throw unauthorized('token_expired', 'The token has expired');
        if (error instanceof joseErrors.JOSEError) throw unauthorized('invalid_token', 'The token is not valid');
        throw error;
      }
    },
  };
}

function isClaims(p: Record<string, unknown>): p is Record<string, unknown> & CrmTokenClaims {
  return (
    Number.isInteger(p.id) &&
    typeof p.email === 'string' &&
    Number.isInteger(p.entity_id) &&
    Number.isInteger(p.employee_id) &&
    typeof p.client_kind === 'string'
  );
}

/** Extracts a bearer token from an `Authorization` header value. */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^Bearer\s+(\S+)$/i.exec(header.trim());
  return match?.[1];
}
