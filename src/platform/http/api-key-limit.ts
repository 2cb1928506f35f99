/**
 * The request budget of each API key (issue 53): `max` requests per `windowMs`, counted in Redis when
 * `REDIS_URL` is set (every instance shares the count), in memory otherwise. Every answer to a key carries
 * the IETF draft headers `RateLimit-Policy: "api-key";q=<max>;w=<window s>` and
 * `RateLimit: "api-key";r=<remaining>;t=<s until reset>`; over budget it is 429 `rate_limited` with `Retry-After`.
 */
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';
import { AppError } from '../errors.js';

export interface ApiKeyLimit {
  /** Counts one request of key `id`; resolves with the headers to answer, throws 429 `rate_limited` over budget. */
  consume(id: number): Promise<Record<string, string>>;
}

/** `prefix` keeps deployments (and test databases) sharing one Redis apart. */
export function createApiKeyLimit(opts: { max: number; windowMs: number; redis?: Redis | undefined; prefix?: string }): ApiKeyLimit {
  const windowSeconds = Math.ceil(opts.windowMs / 1000);
  const base = { keyPrefix: opts.prefix ? `${opts.prefix}:api-key` : 'crm-api-key', points: opts.max, duration: windowSeconds };
  const limiter: RateLimiterAbstract = opts.redis ? new RateLimiterRedis({ ...base, storeClient: opts.redis }) : new RateLimiterMemory(base);
  const policy = `"api-key";q=${opts.max};w=${windowSeconds}`;
  const headers = (res: RateLimiterRes) => ({
    'RateLimit-Policy': policy,
    RateLimit: `"api-key";r=${Math.max(0, res.remainingPoints)};t=${Math.max(0, Math.ceil(res.msBeforeNext / 1000))}`,
  });
  return {
    async consume(id) {
      try {
        return headers(await limiter.consume(String(id)));
      } catch (reason) {
        if (!(reason instanceof RateLimiterRes)) throw reason;
        throw new AppError(
          429,
          'rate_limited',
          'Too many requests',
          'The API key has used its request budget; try again later',
          {},
          {
            ...headers(reason),
            'Retry-After': String(Math.max(1, Math.ceil(reason.msBeforeNext / 1000))),
          },
        );
      }
    },
  };
}
