/**
 * Login throttling: attempts are counted per (e-mail, client address) and per client address, each
 * with `LOGIN_RATE_LIMIT_MAX` per `LOGIN_RATE_LIMIT_WINDOW_SECONDS`. Never per e-mail alone: a stranger
 * hammering an account exhausts only their own budgets, so the owner's correct password from another
 * address still works. A success clears its (e-mail, address) counter and gives those attempts back to the address.
 * The client address is Fastify's `request.ip`, which follows `TRUST_PROXY` (a hop count or proxy
 * addresses, never the client-written left-most X-Forwarded-For). Counters live in Redis when `REDIS_URL`
 * is set (shared by every instance), in memory otherwise. Over budget: 429 `rate_limited` with
 * `Retry-After` in seconds.
 */
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';
import { AppError } from '../errors.js';

export interface LoginThrottle {
  /** Counts one attempt for `ip` and (`email`, `ip`); throws 429 `rate_limited` when either is over budget. */
  consume(ip: string, email: string): Promise<void>;
  /** A successful login: forgets the (`email`, `ip`) attempts and returns them to `ip`'s budget. */
  succeeded(ip: string, email: string): Promise<void>;
}

export function createLoginThrottle(opts: { max: number; windowMs: number; redis?: Redis | undefined }): LoginThrottle {
  const make = (keyPrefix: string): RateLimiterAbstract => {
    const base = { keyPrefix, points: opts.max, duration: Math.ceil(opts.windowMs / 1000) };
    return opts.redis ? new RateLimiterRedis({ ...base, storeClient: opts.redis }) : new RateLimiterMemory(base);
  };
  const byIp = make('crm-login-ip');
  const byAccountIp = make('crm-login-account-ip');
  // JSON keeps the pair unambiguous whatever characters the e-mail holds.
  const pairKey = (ip: string, email: string) => JSON.stringify([email.trim().toLowerCase(), ip]);
  return {
    async consume(ip, email) {
      const results = await Promise.allSettled([byIp.consume(ip), byAccountIp.consume(pairKey(ip, email))]);
      const rejected = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
      for (const reason of rejected) if (!(reason instanceof RateLimiterRes)) throw reason;
      if (rejected.length === 0) return;
      const waitMs = Math.max(...rejected.map((r) => (r as RateLimiterRes).msBeforeNext));
      throw new AppError(
        429,
        'rate_limited',
        'Too many requests',
        'Too many login attempts; try again later',
        {},
        { 'Retry-After': String(Math.max(1, Math.ceil(waitMs / 1000))) },
      );
    },
    async succeeded(ip, email) {
      // Only the pair's own attempts go back to the address: failures against other accounts still count.
      const key = pairKey(ip, email);
      const used = (await byAccountIp.get(key))?.consumedPoints ?? 0;
      await byAccountIp.delete(key);
      if (used > 0) await byIp.reward(ip, used);
    },
  };
}
