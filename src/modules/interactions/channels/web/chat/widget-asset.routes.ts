/**
 * `/widget.js` (the widget script, loaded by any site: `Cross-Origin-Resource-Policy: cross-origin`, cached
 * with an ETag) and `/widget/demo` (this service's demo page with the widget of the demo website, or of
 * `?website_token=`). Both outside the OpenAPI document: they are not API.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../../../../../db/client.js';
import { notFound } from '../../../../../platform/errors.js';
import { findAccountByToken } from './web-channel.repository.js';
import { DEMO_WEBSITE_TOKEN } from './web-channel.demo.js';
import { demoPage, widgetAsset } from '../widget/index.js';

export const widgetAssetRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  app.get('/widget.js', { config: { auth: 'none' }, schema: { hide: true } }, async (request, reply) => {
    const { code, etag } = await widgetAsset();
    void reply
      .header('content-type', 'text/javascript; charset=utf-8')
      .header('cross-origin-resource-policy', 'cross-origin')
      .header('cache-control', 'public, max-age=300')
      .header('etag', etag);
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    return reply.send(code);
  });
  app.get(
    '/widget/demo',
    {
      config: { auth: 'none' },
      schema: { hide: true, querystring: Type.Object({ website_token: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })) }) },
    },
    async (request, reply) => {
      const token = request.query.website_token ?? DEMO_WEBSITE_TOKEN;
      if (!(await findAccountByToken(db, token))) throw notFound('website', token);
      return reply.header('content-type', 'text/html; charset=utf-8').send(demoPage(token));
    },
  );
};
