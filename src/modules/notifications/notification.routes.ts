import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../platform/auth/guard.js';
import { IdParams } from '../../platform/http/ids.js';
import { problemResponse } from '../../platform/http/openapi.js';
import type { Notifications } from './notification.service.js';
import {
  MarkAllReadResponse,
  NotificationListQuery,
  NotificationListResponse,
  NotificationResponse,
  PreferencesBody,
  PreferencesResponse,
  UnreadCountResponse,
} from './notification.schemas.js';

/** `/notifications` (issue 50): the caller's own notification centre; served bare and under /api. */
export const notificationRoutes: FastifyPluginAsyncTypebox<{ notifications: Notifications }> = async (app, { notifications }) => {
  const tags = ['notifications'];
  const config = { auth: 'jwt' as const };
  app.get(
    '/notifications',
    { config, schema: { tags, summary: 'My notifications, newest first', querystring: NotificationListQuery, response: { 200: NotificationListResponse } } },
    async (request) => notifications.list(principalOf(request), request.query),
  );
  app.get(
    '/notifications/unread-count',
    { config, schema: { tags, summary: 'How many of my notifications are unread', response: { 200: UnreadCountResponse } } },
    async (request) => ({ unread: await notifications.unread(principalOf(request)) }),
  );
  app.post(
    '/notifications/:id/read',
    {
      config,
      schema: {
        tags,
        summary: 'Mark one notification read',
        params: IdParams,
        response: { 200: NotificationResponse, 404: problemResponse('`not_found`: not one of the caller’s notifications') },
      },
    },
    async (request) => notifications.markRead(principalOf(request), request.params.id),
  );
  app.post(
    '/notifications/read-all',
    { config, schema: { tags, summary: 'Mark all my notifications read', response: { 200: MarkAllReadResponse } } },
    async (request) => notifications.markAllRead(principalOf(request)),
  );
  app.get(
    '/notifications/preferences',
    { config, schema: { tags, summary: 'Which kinds I receive in the app', response: { 200: PreferencesResponse } } },
    async (request) => ({ data: await notifications.preferences(principalOf(request)) }),
  );
  app.put(
    '/notifications/preferences',
    { config, schema: { tags, summary: 'Turn kinds on or off in the app', body: PreferencesBody, response: { 200: PreferencesResponse } } },
    async (request) => ({ data: await notifications.setPreferences(principalOf(request), request.body.preferences) }),
  );
};
