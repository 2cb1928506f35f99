/**
 * Liveness (`/healthz`: the process answers) and readiness (`/readyz`: the database answers and the
 * instance is not shutting down; 503 `service_draining` from SIGTERM on).
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Database } from '../../db/client.js';
import { AppError } from '../errors.js';
import { drainingError } from './drain.js';
import { problemResponse } from './openapi.js';

const Status = Type.Object({ status: Type.String() });

export async function healthRoutes(app: FastifyInstance, opts: { database: Database }): Promise<void> {
  app.get(
    '/healthz',
    { config: { auth: 'none' }, schema: { tags: ['health'], summary: 'Liveness: the process answers', security: [], response: { 200: Status } } },
    async () => ({
      status: 'ok',
    }),
  );
  app.get(
    '/readyz',
    {
      config: { auth: 'none' },
      schema: {
        tags: ['health'],
        summary: 'Readiness: the database answers and the instance is not shutting down',
        security: [],
        response: { 200: Status, 503: problemResponse('`not_ready`: the database does not answer; `service_draining`: the instance is shutting down') },
      },
    },
    async (request) => {
      if (app.drain?.draining) throw drainingError('This instance is shutting down');
      try {
        await opts.database.ping();
      } catch (err) {
        request.log.warn({ err }, 'database not reachable');
        throw new AppError(503, 'not_ready', 'Service unavailable', 'The database is not reachable');
      }
      return { status: 'ready' };
    },
  );
}
