/** Message templates: the entity's WhatsApp templates, their review status from the platform, and the checks of a template message's parameters. */
export { TemplateMessageBody } from './template-message.schemas.js';
export { templateRoutes } from './template.routes.js';
export { createTemplateService } from './template.service.js';
export type { TemplateReview, TemplateService } from './template.service.js';
