/**
 * What every module receives at registration: explicit dependencies, no container (DESIGN "Layout").
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import type { Database, Db } from '../db/client.js';
import type { EventBus } from './events/bus.js';
import type { Queue } from './queue/queue.js';
import type { TokenService } from './auth/jwt.js';
import type { Authenticator } from './auth/authenticator.js';
import type { ResolvedSecrets } from './secrets.js';
import type { Realtime } from './realtime/gateway.js';
import type { RealtimeEmitter } from './realtime/events.js';

export interface AppContext {
  config: Config;
  database: Database;
  db: Db;
  events: EventBus;
  queue: Queue;
  tokens: TokenService;
  authenticator: Authenticator;
  secrets: ResolvedSecrets;
  log: FastifyBaseLogger;
  /** Shared Redis connection when `REDIS_URL` is set. */
  redis: Redis | undefined;
  /** The realtime gateway (namespaces, the audience, sockets); it emits nothing itself. */
  realtime: Realtime;
  /**
   * The one publisher of socket events (`realtime.publisher`): modules emit through it (`toEntity`, `toVisitor`),
   * events of a change through the change's collector, published after its commit.
   */
  publisher: RealtimeEmitter;
}
