/** The communications webhook: signature check, normalization into canonical events (by the channel adapters, or canonical payloads as they are), and their acceptance into the intake. */
export { webhookRoutes } from './webhook.routes.js';
export { createWebhookService } from './webhook.service.js';
