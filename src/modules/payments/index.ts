/**
 * Payment platform webhook placeholder (SPEC "Webhooks"): every event is written to the log as one
 * structured JSON line and answered 200; `GET /api/payments/webhooks/health` answers `{ status: "ok" }`.
 */
import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../platform/context.js';
import { registerRoutes } from '../../platform/http/dual-prefix.js';

/** What a payment platform posts: any JSON (or other) body, written to the log unchanged. */
const PaymentEvent = Type.Unknown({ description: "The payment platform's event as it sends it (any JSON); not interpreted yet" });

const paymentsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['webhooks'];
  app.post(
    '',
    {
      // Any body is accepted and logged as it came; the document describes it without a validator in front.
      config: { auth: 'none', swaggerTransform: ({ schema, url }) => ({ schema: { ...schema, body: PaymentEvent }, url }) },
      schema: { tags, summary: 'Payment platform events (logged only)', security: [], response: { 200: Type.Object({ received: Type.Boolean() }) } },
    },
    async (request) => {
      request.log.info({ paymentEvent: request.body ?? null, contentType: request.headers['content-type'] ?? null }, 'payment webhook event');
      return { received: true };
    },
  );
  app.get(
    '/health',
    {
      config: { auth: 'none' },
      schema: { tags, summary: 'Health of the payment webhook', security: [], response: { 200: Type.Object({ status: Type.Literal('ok') }) } },
    },
    async () => ({ status: 'ok' as const }),
  );
};

export async function registerPaymentsModule(app: FastifyInstance, _ctx: AppContext): Promise<void> {
  await registerRoutes(app, paymentsRoutes, { prefix: '/api/payments/webhooks' });
}
