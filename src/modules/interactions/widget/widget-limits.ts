/**
 * Rate limits of the website chat (issue 32): requests and socket events per minute per client address and
 * per visitor, counted in Redis when `REDIS_URL` is set (shared by every instance), in memory otherwise (as
 * the login throttle). Over budget: 429 `rate_limited` with `Retry-After` in seconds.
 */
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { AppError } from '../../../platform/errors.js';

export interface WidgetLimits {
  /** Counts one request or handshake of client address `ip`; throws 429 `rate_limited`. */
  byIp(ip: string): Promise<void>;
  /** Counts one request or socket event of visitor `visitorId`; throws 429 `rate_limited`. */
  byVisitor(visitorId: number): Promise<void>;
}

export function createWidgetLimits(opts: { perIp: number; perVisitor: number; redis?: Redis | undefined; keyPrefix?: string }): WidgetLimits {
  const make = (keyPrefix: string, points: number): RateLimiterAbstract => {
    const base = { keyPrefix: `${opts.keyPrefix ?? 'crm'}-${keyPrefix}`, points, duration: 60 };
    return opts.redis ? new RateLimiterRedis({ ...base, storeClient: opts.redis }) : new RateLimiterMemory(base);
  };
  const ip = make('widget-ip', opts.perIp);
  const visitor = make('widget-visitor', opts.perVisitor);
  const consume = async (limiter: RateLimiterAbstract, key: string) => {
    try {
      await limiter.consume(key);
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      throw new AppError(
        429,
        'rate_limited',
        'Too many requests',
        'Too many requests; try again later',
        {},
        {
          'Retry-After': String(Math.max(1, Math.ceil(err.msBeforeNext / 1000))),
        },
      );
    }
  };
  return {
    byIp: (address) => consume(ip, address),
    byVisitor: (id) => consume(visitor, String(id)),
  };
}
