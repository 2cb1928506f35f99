/**
 * Login throttling: attempts are counted per client IP and per e-mail, each with its own budget
 * (`LOGIN_RATE_LIMIT_MAX` per `LOGIN_RATE_LIMIT_WINDOW_SECONDS`). Counters live in Redis when
 * `REDIS_URL` is set (shared by every instance), in memory otherwise. Over budget: 429 `rate_limited`
 * with `Retry-After` in seconds.
 */
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';
import { AppError } from '../errors.js';

export interface LoginThrottle {
  /** Counts one attempt for `ip` and `email`; throws 429 when either is over budget. */
  consume(ip: string, email: string): Promise<void>;
}

export function createLoginThrottle(opts: { max: number; windowMs: number; redis?: Redis | undefined }): LoginThrottle {
  const make = (keyPrefix: string): RateLimiterAbstract => {
    const base = { keyPrefix, points: opts.max, duration: Math.ceil(opts.windowMs / 1000) };
    return opts.redis ? new RateLimiterRedis({ ...base, storeClient: opts.redis }) : new RateLimiterMemory(base);
  };
  const byIp = make('crm-login-ip');
  const byEmail = make('crm-login-email');
  return {
    async consume(ip, email) {
      const results = await Promise.allSettled([byIp.consume(ip), byEmail.consume(email.trim().toLowerCase())]);
      const rejected = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
      for (const reason of rejected) if (!(reason instanceof RateLimiterRes)) throw reason;
      if (rejected.length === 0) return;
      const waitMs = Math.max(...rejected.map((r) => (r as RateLimiterRes).msBeforeNext));
      throw new AppError(429, 'rate_limited', 'Too many requests', 'Too many login attempts; try again later', {}, { 'Retry-After': String(Math.max(1, Math.ceil(waitMs / 1000))) });
    },
  };
}
