/**
 * The notifications module's face (issue 50): each employee's notification centre, made from the interactions
 * module's domain events, at `/notifications` (bare and under /api), pushed live on the employee's own sockets.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../platform/context.js';
import { registerBareAndApi } from '../../platform/http/dual-prefix.js';
import { visibleConversationIds } from '../interactions/index.js';
import { notificationRoutes } from './notification.routes.js';
import { createNotifications, subscribeNotifications } from './notification.service.js';

export async function registerNotificationsModule(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const notifications = createNotifications({
    db: ctx.db,
    realtime: ctx.publisher,
    visibleConversations: (p, ids) => visibleConversationIds(ctx.db, p, ids),
  });
  await subscribeNotifications(ctx.events, notifications);
  await registerBareAndApi(app, notificationRoutes, { notifications });
}
