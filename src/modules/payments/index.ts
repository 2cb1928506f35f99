/**
 * Payment platform webhook placeholder (SPEC "Webhooks"): every event is written to the log as one
 * structured JSON line and answered 200; `GET /api/payments/webhooks/health` answers `{ status: "ok" }`.
 */
import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../platform/context.js';

const paymentsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['webhooks'];
  app.post('', { config: { auth: 'none' }, schema: { tags, summary: 'Payment platform events (logged only)', security: [], response: { 200: Type.Object({ received: Type.Boolean() }) } } }, async (request) => {
    request.log.info({ paymentEvent: request.body ?? null, contentType: request.headers['content-type'] ?? null }, 'payment webhook event');
    return { received: true };
  });
  app.get('/health', { config: { auth: 'none' }, schema: { tags, summary: 'Health of the payment webhook', security: [], response: { 200: Type.Object({ status: Type.Literal('ok') }) } } }, async () => ({ status: 'ok' as const }));
};

export async function registerPaymentsModule(app: FastifyInstance, _ctx: AppContext): Promise<void> {
  await app.register(paymentsRoutes, { prefix: '/api/payments/webhooks' });
}
