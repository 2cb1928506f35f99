/**
 * Rate limits of the website chat (issue 32, issue 48): requests and socket events per minute per client
 * address (an IPv6 address as its /64) and per visitor, and new visitors per hour per website and per
 * address range (/24 for IPv4, /64 for IPv6) on that website. Counted in Redis when `REDIS_URL` is set
 * (shared by every instance), in memory otherwise (as the login throttle). Over budget: 429
 * `rate_limited` with `Retry-After` in seconds, and nothing about the budget itself.
 */
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { AppError } from '../../../../../platform/errors.js';
import { addressRange } from '../../../../../platform/http/address-range.js';

export interface WidgetLimits {
  /** Counts one request or handshake of client address `ip`; throws 429 `rate_limited`. */
  byIp(ip: string): Promise<void>;
  /** Counts one request or socket event of visitor `visitorId`; throws 429 `rate_limited`. */
  byVisitor(visitorId: number): Promise<void>;
  /** Counts one new visitor of website `websiteId` from `ip`; throws 429 `rate_limited`. */
  newVisitor(websiteId: number, ip: string): Promise<void>;
}

export interface WidgetLimitSettings {
  /** Requests and handshakes per minute per client address. */
  perIp: number;
  /** Requests and socket events per minute per visitor. */
  perVisitor: number;
  /** New visitors per hour per website and address range. */
  newVisitorsPerRange: number;
  /** New visitors per hour per website. */
  newVisitorsPerWebsite: number;
}

export function createWidgetLimits(opts: WidgetLimitSettings & { redis?: Redis | undefined; keyPrefix?: string }): WidgetLimits {
  const make = (keyPrefix: string, points: number, duration: number): RateLimiterAbstract => {
    const base = { keyPrefix: `${opts.keyPrefix ?? 'crm'}-${keyPrefix}`, points, duration };
    return opts.redis ? new RateLimiterRedis({ ...base, storeClient: opts.redis }) : new RateLimiterMemory(base);
  };
  const ip = make('widget-ip', opts.perIp, 60);
  const visitor = make('widget-visitor', opts.perVisitor, 60);
  const newByRange = make('widget-new-visitor-range', opts.newVisitorsPerRange, 3600);
  const newByWebsite = make('widget-new-visitor-website', opts.newVisitorsPerWebsite, 3600);
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
    byIp: (address) => consume(ip, addressRange(address)),
    byVisitor: (id) => consume(visitor, String(id)),
    async newVisitor(websiteId, address) {
      // The range first: one neighbourhood spends its own budget, not the website's.
      await consume(newByRange, `${websiteId}|${addressRange(address, 24)}`);
      await consume(newByWebsite, String(websiteId));
    },
  };
}
