/** The communications webhook: signature check, normalization of WhatsApp, Messenger, Instagram and canonical payloads into canonical events, and their acceptance into the inbox. */
export { webhookRoutes } from './webhook.routes.js';
export { createWebhookService } from './webhook.service.js';
